"""The simulated model's rules for the web search tests (a test helper): it searches when
asked to, answers from the results (citing the first as `[1]`) only once the results reached
it, keeps searching for `loop`, and says so when a search failed."""

from __future__ import annotations

from typing import Any

from fake_search import PAGE_URL

QUERY = "maestro bridge web search"
ANSWER = "The bridge runs the hosted search tools itself [1]."
FAILED_ANSWER = "The search service is down, so I answer from memory."
LIMIT_ANSWER = "I reached the search limit."
# The URL is in the results text the model reads: its answer proves they reached it.
RESULT_MARK = PAGE_URL.replace(".", r"\.")


def search_rules(tool: str = "web_search") -> list[dict[str, Any]]:
    call = {"type": "tool_call", "name": tool, "arguments": {"query": QUERY}}
    loop = {"type": "tool_call", "name": tool, "arguments": {"query": "loop"}}
    return [
        # A later turn: the request as the editor got it (the searches of the history in it).
        {"match": "What did you find", "reply": [{"type": "request"}]},
        {
            "match": r"failed \((unavailable|too_many_requests)\)",
            "reply": [{"type": "text", "text": FAILED_ANSWER}],
        },
        {"match": "max_uses_exceeded", "reply": [{"type": "text", "text": LIMIT_ANSWER}]},
        {"match": "Web results for 'loop'", "reply": [loop]},
        {"match": "search in a loop", "reply": [loop]},
        {"match": RESULT_MARK, "reply": [{"type": "text", "text": ANSWER}]},
        {
            "match": "(?i)search the web",
            "reply": [{"type": "text", "text": "Let me look that up."}, call],
        },
    ]
