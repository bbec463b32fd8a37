"""Issue 44: OpenAI's hosted `web_search` (and `web_search_preview`) through a real `serve` with
SearXNG (a FAKE one, tests/fake_search.py): each search is a `web_search_call` item (its
`action` with the query, and the sources when `include` asks), the answer's text carries
`url_citation` annotations, `filters.allowed_domains` and `max_tool_calls` hold, and a failing
service is a failed search call, not a failed response. Checked against the Open Responses
schemas with the openai SDK's web search types (tests/spec_validation.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from fake_search import PAGE_TITLE, PAGE_URL, FakeSearch, fake_search
from plain_http import post
from spec_validation import parse_sse, validate_response, validate_stream
from web_search_script import ANSWER, FAILED_ANSWER, LIMIT_ANSWER, QUERY, search_rules


@pytest.fixture(scope="module")
def search() -> Iterator[FakeSearch]:
    with fake_search() as fake:
        yield fake


def _script(folder: Path) -> str:
    path = folder / "script.json"
    path.write_text(json.dumps({"rules": search_rules()}), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def server(search: FakeSearch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    script = _script(tmp_path_factory.mktemp("script"))
    args = ("--script", script, "--web-search", "searxng", "--web-search-url", search.url)
    with running_bridge_server(*args) as bridge:
        yield bridge


def _respond(
    server: BridgeServer, prompt: str, stream: bool = True, **extra: Any
) -> dict[str, Any]:
    body = {
        "model": "sim-echo",
        "input": prompt,
        "stream": stream,
        "tools": [{"type": "web_search"}],
        **extra,
    }
    reply = post(f"{server.base_url}/responses", body)
    assert reply.status_code == 200, reply.text
    if not stream:
        whole: dict[str, Any] = reply.json()
        validate_response(whole)
        return whole
    return validate_stream(parse_sse(reply.text))


@pytest.mark.parametrize("stream", [True, False])
def test_a_search_call_and_a_cited_answer(server: BridgeServer, stream: bool) -> None:
    response = _respond(
        server, "Please search the web.", stream, include=["web_search_call.action.sources"]
    )
    kinds = [item["type"] for item in response["output"]]
    assert kinds == ["message", "web_search_call", "message"], kinds
    call = response["output"][1]
    assert call["status"] == "completed" and call["id"].startswith("ws_")
    assert call["action"] == {
        "type": "search",
        "query": QUERY,
        "sources": [
            {"type": "url", "url": PAGE_URL},
            {"type": "url", "url": "https://other.example/news"},
        ],
    }
    text = response["output"][2]["content"][0]
    assert text["text"] == ANSWER
    assert text["annotations"] == [
        {
            "type": "url_citation",
            "start_index": 0,
            "end_index": len(ANSWER) - 1,
            "url": PAGE_URL,
            "title": PAGE_TITLE,
        }
    ]


def test_sources_only_when_include_asks_and_preview_names(server: BridgeServer) -> None:
    response = _respond(
        server, "Please search the web.", tools=[{"type": "web_search_preview_2025_03_11"}]
    )
    call = response["output"][1]
    assert call["action"] == {"type": "search", "query": QUERY}


def test_filters_and_max_tool_calls(server: BridgeServer, search: FakeSearch) -> None:
    tool = {"type": "web_search", "filters": {"allowed_domains": ["maestro-bridge.example"]}}
    response = _respond(
        server, "Please search the web.", tools=[tool], include=["web_search_call.action.sources"]
    )
    assert response["output"][1]["action"]["sources"] == [{"type": "url", "url": PAGE_URL}]
    response = _respond(server, "Please search in a loop.", max_tool_calls=1)
    kinds = [item["type"] for item in response["output"]]
    assert kinds == ["web_search_call", "web_search_call", "message"], kinds
    assert response["output"][1]["status"] == "failed"
    assert response["output"][2]["content"][0]["text"] == LIMIT_ANSWER


def test_a_failing_service_fails_the_search_not_the_response(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with fake_search() as failing:
        failing.status = 429
        script = _script(tmp_path_factory.mktemp("failing"))
        args = ("--script", script, "--web-search", "searxng", "--web-search-url", failing.url)
        with running_bridge_server(*args) as bridge:
            response = _respond(bridge, "Please search the web.")
    assert response["status"] == "completed"
    assert response["output"][1]["status"] == "failed"
    assert response["output"][2]["content"][0]["text"] == FAILED_ANSWER


def test_a_web_search_tool_choice_makes_the_model_search(server: BridgeServer) -> None:
    """`tool_choice: {"type": "web_search"}`: only the search is offered, and required, for the
    first round; then the model answers freely (the rule below would search on and on)."""
    function = {"type": "function", "name": "lookup", "parameters": {"type": "object"}}
    response = _respond(
        server,
        "Please search in a loop.",
        tools=[{"type": "web_search"}, function],
        tool_choice={"type": "web_search"},
        max_tool_calls=1,
    )
    assert response["tool_choice"] == "required"
    kinds = [item["type"] for item in response["output"]]
    assert kinds == ["web_search_call", "web_search_call", "message"], kinds
