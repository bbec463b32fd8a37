"""Issue 44: the web search's pieces, alone: results reduced to text and bounded, URL and
domain rules, an editor tool's results read, the citations found, Gemini's marks taken out
(also when a mark comes in pieces), the service's refusals, and the loop's rounds (searches
hidden from the client, their usage summed, the limit kept) over a backend that replays the
model's parts."""

from __future__ import annotations

import base64
import contextvars
import json
import subprocess
import sys
from collections.abc import AsyncGenerator
from typing import Any

from bridge.anthropic.tools import plan_tools
from bridge.cli import _parser, serve_options
from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    ChatTool,
    DataPart,
    ModelInfo,
    ResponsePart,
    TextPart,
    ToolCallPart,
)
from bridge.gemini.web_search import Grounding
from bridge.settings import BridgeSettings
from bridge.web_search.backends.editor_tool import query_key, tool_results
from bridge.web_search.citations import citations
from bridge.web_search.command import needs_tls
from bridge.web_search.events import search_of
from bridge.web_search.loop import SearchingBackend
from bridge.web_search.request import SEARCH_TOOL, SearchAsk, search_tool, set_available
from bridge.web_search.results import (
    SearchOutcome,
    SearchResult,
    filtered,
    in_domains,
    plain_text,
    result_of,
    web_url,
)
from bridge.web_search.service import SearchService


def test_html_is_reduced_to_bounded_text() -> None:
    html = "<p>Fast <b>search</b> &amp; more<script>alert(1)</script>\n\n  here</p>"
    assert plain_text(html, 100) == "Fast search & more here"
    assert plain_text("x" * 50, 10) == "x" * 9 + "…"
    assert plain_text(None, 10) == ""


def test_only_web_urls_are_kept() -> None:
    assert web_url("https://a.example/x") == "https://a.example/x"
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "//a.example", "https://", 3):
        assert web_url(bad) is None
    assert web_url("https://a.example/" + "x" * 3000) is None
    assert result_of("t", "ftp://a.example", "", None) is None


def test_domains_take_subdomains_and_paths() -> None:
    assert in_domains("https://docs.example.com/a", ["example.com"])
    assert not in_domains("https://notexample.com/a", ["example.com"])
    assert in_domains("https://example.com/blog/post", ["example.com/blog"])
    assert not in_domains("https://example.com/shop", ["https://example.com/blog"])
    results = [
        result_of(f"t{i}", f"https://{host}/", "", None)
        for i, host in enumerate(["a.example", "b.example", "a.example", "c.example"])
    ]
    kept = filtered(results, [], ["b.example"], 5)
    assert [r.url for r in kept] == ["https://a.example/", "https://c.example/"]
    assert len(filtered(results, [], [], 1)) == 1


def test_an_editor_tools_results_are_read() -> None:
    as_json = json.dumps(
        {"results": [{"title": "T", "link": "https://a.example/", "content": "S"}]}
    )
    assert tool_results(as_json) == [SearchResult("T", "https://a.example/", "S")]
    text = "1. Guide - https://a.example/guide.\nno url here\n2. https://b.example/"
    found = tool_results(text)
    assert [r.url for r in found if r] == ["https://a.example/guide", "https://b.example/"]
    assert (
        query_key({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
        == "q"
    )
    assert query_key(None) == "query"


def test_citations_cover_the_sentence_before_each_mark() -> None:
    results = [SearchResult("A", "https://a.example/"), SearchResult("B", "https://b.example/")]
    text = "First claim [1]. Second claim [2] and [9]. Third."
    found = citations(text, results)
    assert [(c.number, text[c.start : c.end], c.cited_text) for c in found] == [
        (1, "First claim [1]", "First claim"),
        (2, "Second claim [2]", "Second claim"),
    ]


def test_gemini_text_loses_the_marks_even_in_pieces() -> None:
    grounding = Grounding()
    grounding.add(SearchOutcome("c", "q", [SearchResult("A", "https://a.example/")]))
    pieces = ["It is so", " [", "1", "]. Not [7]", " here."]
    shown = "".join(grounding.text(piece) for piece in pieces) + grounding.flush()
    assert shown == "It is so. Not [7] here."
    metadata = grounding.metadata()
    assert metadata is not None
    assert metadata["groundingSupports"] == [
        {
            "segment": {"startIndex": 0, "endIndex": 8, "text": "It is so"},
            "groundingChunkIndices": [0],
        }
    ]


class _Failing:
    name = "failing"

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        raise AssertionError("not asked")


async def test_the_service_refuses_empty_and_long_queries() -> None:
    service = SearchService(_Failing(), 5)
    assert (await service.run("c", "  ", SearchAsk())).error == "invalid_tool_input"
    assert (await service.run("c", "q" * 401, SearchAsk())).error == "query_too_long"
    assert (await service.run("c", None, SearchAsk())).error == "invalid_tool_input"


def _usage(prompt: int, completion: int) -> DataPart:
    raw = {"prompt_tokens": prompt, "completion_tokens": completion}
    return DataPart(mimeType="usage", data=base64.b64encode(json.dumps(raw).encode()).decode())


class _Rounds:
    """The model's parts, one list per round; records each request."""

    def __init__(self, rounds: list[list[ResponsePart]]) -> None:
        self.rounds = rounds
        self.requests: list[ChatRequest] = []

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def count_tokens(self, model: str, text: str) -> int:
        return 0

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.requests.append(request)
        yield self.rounds[len(self.requests) - 1]


class _Fixed:
    name = "fixed"

    async def search(self, query: str, ask: SearchAsk, limit: int) -> list[SearchResult | None]:
        return [SearchResult("A", "https://a.example/", "snippet")]


def _chat(ask: SearchAsk) -> ChatRequest:
    request = ChatRequest(
        model="m",
        messages=[ChatMessage(role="user", content=[TextPart(value="hi")])],
        tools=[search_tool(ask), ChatTool(name="Bash", description="", inputSchema={})],
    )
    request.webSearch = ask
    return request


def _search(call_id: str) -> ToolCallPart:
    return ToolCallPart(callId=call_id, name=SEARCH_TOOL, input={"query": "q"})


async def _answer(backend: SearchingBackend, request: ChatRequest) -> list[Any]:
    return [part async for batch in backend.chat(request) for part in batch]


async def test_the_loop_hides_the_calls_sums_usage_and_keeps_the_limit() -> None:
    rounds: list[list[ResponsePart]] = [
        [TextPart(value="Looking."), TextPart(value=" "), _search("c1"), _usage(10, 2)],
        [_search("c2"), _usage(20, 3)],
        [TextPart(value="Done [1]."), _usage(30, 4)],
    ]
    model = _Rounds(rounds)
    parts = await _answer(
        SearchingBackend(model, SearchService(_Fixed(), 5)), _chat(SearchAsk(max_uses=1))
    )
    searches = [search_of(p) for p in parts if search_of(p) is not None]
    assert [(s.call_id, s.error) for s in searches if s] == [
        ("c1", None),
        ("c2", "max_uses_exceeded"),
    ]
    texts = [p.value for p in parts if isinstance(p, TextPart)]
    assert texts == ["Looking.", "Done [1]."]  # Copilot's space before the call is gone
    assert not any(isinstance(p, ToolCallPart) for p in parts)
    usage = [p for p in parts if isinstance(p, DataPart) and p.mimeType == "usage"]
    assert len(usage) == 1
    summed = json.loads(base64.b64decode(usage[0].data))
    assert (summed["prompt_tokens"], summed["completion_tokens"]) == (60, 9)
    # Each round has the calls (after the text the model said) and their results; after the
    # refused one, no search tool.
    _, said, read = model.requests[1].messages
    assert said.role == "assistant" and said.content[0] == TextPart(value="Looking.")
    assert [p.callId for p in said.content[1:] if isinstance(p, ToolCallPart)] == ["c1"]
    assert read.role == "user" and len(read.content) == 1
    assert [t.name for t in model.requests[2].tools] == ["Bash"]


async def test_a_client_tool_call_ends_the_answer_after_the_search() -> None:
    bash = ToolCallPart(callId="b", name="Bash", input={"command": "ls"})
    model = _Rounds([[_search("c1"), bash]])
    parts = await _answer(SearchingBackend(model, SearchService(_Fixed(), 5)), _chat(SearchAsk()))
    assert len(model.requests) == 1
    assert [p.name for p in parts if isinstance(p, ToolCallPart)] == ["Bash"]
    assert [s.call_id for p in parts if (s := search_of(p))] == ["c1"]


async def test_a_request_without_an_ask_goes_straight_through() -> None:
    model = _Rounds([[_search("c1")]])
    request = _chat(SearchAsk())
    request.webSearch = None
    parts = await _answer(SearchingBackend(model, SearchService(_Fixed(), 5)), request)
    assert [p.name for p in parts if isinstance(p, ToolCallPart)] == [SEARCH_TOOL]


def test_https_without_tls_is_a_failed_search_not_a_crash() -> None:
    """The bridge's processes leave `ssl` out unless a search needs it (bridge/plain_http.py):
    a search over https there is `unavailable`, saying why."""
    code = (
        "import sys; sys.modules['ssl'] = None\n"
        "import asyncio\n"
        "from bridge.web_search.backends.base import fetch_json\n"
        "from bridge.web_search.results import SearchFailed\n"
        "async def main():\n"
        "    try:\n"
        "        await fetch_json('GET', 'https://127.0.0.1:9/search', 5)\n"
        "    except SearchFailed as exc:\n"
        "        print(exc.code, exc.message)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip() == (
        "unavailable https needs TLS, which this process was started without"
    ), done.stderr


def test_the_serve_flags_make_the_options_and_keep_tls_when_needed() -> None:
    args = _parser().parse_args(
        ["serve", "--web-search", "searxng", "--web-search-url", "http://127.0.0.1:8888"]
    )
    options = serve_options(args)["webSearch"]
    assert options == {"backend": "searxng", "url": "http://127.0.0.1:8888"}
    assert BridgeSettings.from_options({"webSearch": options}).webSearch.backend == "searxng"
    assert "webSearch" not in serve_options(_parser().parse_args(["serve"]))
    assert needs_tls(["serve", "--web-search", "brave"])
    assert needs_tls(["serve", "--web-search=tavily"])
    assert needs_tls(["serve", "--web-search", "searxng", "--web-search-url", "https://s.example"])
    assert not needs_tls(["serve", "--web-search", "searxng", "--web-search-url", "http://a"])
    assert not needs_tls(["serve"])


def test_a_client_tool_named_web_search_is_not_taken_for_the_search() -> None:
    client = {"name": "web_search", "description": "mine", "input_schema": {"type": "object"}}
    hosted = {"type": "web_search_20250305", "name": "web_search"}

    def plans() -> tuple[Any, Any]:
        set_available(True)  # as the HTTP layer does, in this context only
        return plan_tools([client, hosted], None), plan_tools([hosted, client], None)

    first, second = contextvars.copy_context().run(plans)
    assert first.search is None and first.tools[0].description == "mine"
    assert second.search is not None and second.search.param == "tools[0]"
