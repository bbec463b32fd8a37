"""The simulated model's rules for the web search tests (a test helper): it searches when
asked to, answers from the results (citing the first as `[1]`) only once the results reached
it, keeps searching for `loop`, and says so when a search failed."""

from __future__ import annotations

from typing import Any

from fake_search import KEY, PAGE_TITLE, PAGE_URL, FakeSearch

QUERY = "maestro bridge web search"
ANSWER = "The bridge runs the hosted search tools itself [1]."
FAILED_ANSWER = "The search service is down, so I answer from memory."
LIMIT_ANSWER = "I reached the search limit."
# The URL is in the results text the model reads: its answer proves they reached it.
RESULT_MARK = PAGE_URL.replace(".", r"\.")


def search_rules(tool: str = "web_search", query: str = QUERY) -> list[dict[str, Any]]:
    call = {"type": "tool_call", "name": tool, "arguments": {"query": query}}
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


# -- the search services, each through the bridge -------------------------------------------

BACKENDS = ["searxng", "brave", "tavily", "tool"]
# The `tool` backend runs on the headless editor's `sim_echo` tool (a real editor tool call,
# docs/protocol.md): it gives the query back, which the bridge reads as one result per line
# holding a URL. So its query is the guide's own line.
TOOL_QUERY = f"{PAGE_TITLE} - {PAGE_URL}"


def query_for(backend: str) -> str:
    return TOOL_QUERY if backend == "tool" else QUERY


def backend_args(backend: str, fake: FakeSearch) -> tuple[list[str], dict[str, str]]:
    """`serve`'s flags and environment for a backend on the fake service (or the editor)."""
    if backend == "tool":
        return ["--web-search", "tool", "--web-search-tool", "sim_echo"], {}
    path = {"searxng": "", "brave": "/res/v1/web/search", "tavily": "/search"}[backend]
    env = {} if backend == "searxng" else {"MAESTRO_WEB_SEARCH_API_KEY": KEY}
    return ["--web-search", backend, "--web-search-url", fake.url + path], env


def searched(fake: FakeSearch) -> list[str]:
    """The queries the fake service was asked, whichever API asked them."""
    return [str(r["query"].get("q") or (r["body"] or {}).get("query")) for r in fake.requests]
