"""Issue 44: Anthropic's `web_search_*` tool run by the bridge, through a real `serve` with
SearXNG, Brave and Tavily (a FAKE service in their shapes, tests/fake_search.py): the answer
streams `server_tool_use`, `web_search_tool_result` and text with `citations`, counts the
searches in `usage.server_tool_use`, keeps to `max_uses` and the domain filters, and a failing
service is a `web_search_tool_result_error`, not a failed answer. Streams are checked against
the Messages schema and order rules (tests/anthropic_validation.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from anthropic_validation import check_stream, parse_sse, validate_message
from conftest import BridgeServer, running_bridge_server
from fake_search import KEY, PAGE_TITLE, PAGE_URL, FakeSearch, fake_search
from plain_http import post
from web_search_script import ANSWER, FAILED_ANSWER, LIMIT_ANSWER, QUERY, search_rules


@pytest.fixture(scope="module")
def search() -> Iterator[FakeSearch]:
    with fake_search() as fake:
        yield fake


def _server(
    tmp_path_factory: pytest.TempPathFactory, *args: str, env: dict[str, str] | None = None
) -> Any:
    path = tmp_path_factory.mktemp("script") / "script.json"
    path.write_text(json.dumps({"rules": search_rules()}), encoding="utf-8")
    return running_bridge_server("--script", str(path), *args, env=env)


@pytest.fixture(scope="module")
def searxng_server(
    search: FakeSearch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BridgeServer]:
    with _server(
        tmp_path_factory, "--web-search", "searxng", "--web-search-url", search.url
    ) as server:
        yield server


def _ask(
    server: BridgeServer, prompt: str, tool: dict[str, Any] | None = None, stream: bool = True
) -> dict[str, Any]:
    body = {
        "model": "sim-echo",
        "max_tokens": 512,
        "stream": stream,
        "messages": [{"role": "user", "content": prompt}],
        "tools": [tool or {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
    }
    reply = post(f"{server.root_url}/v1/messages", body)
    assert reply.status_code == 200, reply.text
    if not stream:
        whole: dict[str, Any] = reply.json()
        validate_message(whole)
        return whole
    result = check_stream(parse_sse(reply.text))
    assert result.message is not None, result
    return result.message


def _searched(message: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    kinds = [block["type"] for block in message["content"]]
    assert kinds == ["text", "server_tool_use", "web_search_tool_result", "text"], kinds
    _, use, result, text = message["content"]
    return use, result, text


@pytest.mark.parametrize("stream", [True, False])
def test_the_search_runs_and_the_answer_cites_it(
    searxng_server: BridgeServer, search: FakeSearch, stream: bool
) -> None:
    message = _ask(searxng_server, "Please search the web for it.", stream=stream)
    use, result, text = _searched(message)
    assert use["name"] == "web_search" and use["input"] == {"query": QUERY}
    assert use["id"].startswith("srvtoolu_") and result["tool_use_id"] == use["id"]
    first = result["content"][0]
    assert (first["url"], first["title"], first["page_age"]) == (PAGE_URL, PAGE_TITLE, "2026-11-01")
    # HTML reduced to text; a javascript: result dropped.
    assert [r["url"] for r in result["content"]] == [PAGE_URL, "https://other.example/news"]
    assert text["text"] == ANSWER
    assert [c["url"] for c in text["citations"]] == [PAGE_URL]
    assert text["citations"][0]["cited_text"] == "The bridge runs the hosted search tools itself"
    assert message["usage"]["server_tool_use"] == {
        "web_search_requests": 1,
        "web_fetch_requests": 0,
    }
    assert message["stop_reason"] == "end_turn"
    asked = search.requests[-1]
    assert asked["path"] == "/search" and asked["query"]["q"] == QUERY
    assert asked["query"]["format"] == "json"


def test_max_uses_ends_the_searches(searxng_server: BridgeServer) -> None:
    tool = {"type": "web_search_20260209", "name": "web_search", "max_uses": 1}
    message = _ask(searxng_server, "Please search in a loop.", tool)
    kinds = [block["type"] for block in message["content"]]
    assert kinds == [
        "server_tool_use",
        "web_search_tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ], kinds
    assert message["content"][3]["content"] == {
        "type": "web_search_tool_result_error",
        "error_code": "max_uses_exceeded",
    }
    assert message["content"][4]["text"] == LIMIT_ANSWER
    assert message["usage"]["server_tool_use"]["web_search_requests"] == 1


def test_domain_filters_keep_and_drop_results(searxng_server: BridgeServer) -> None:
    allowed = {
        "type": "web_search_20250305",
        "name": "web_search",
        "allowed_domains": ["other.example"],
    }
    _, result, _ = _searched_or_text(_ask(searxng_server, "Please search the web.", allowed))
    assert [r["url"] for r in result["content"]] == ["https://other.example/news"]
    blocked = {
        "type": "web_search_20250305",
        "name": "web_search",
        "blocked_domains": ["other.example"],
    }
    _, result, _ = _searched(_ask(searxng_server, "Please search the web.", blocked))
    assert [r["url"] for r in result["content"]] == [PAGE_URL]


def _searched_or_text(
    message: dict[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]:
    """Without the page among the results the model answers nothing from it: no last text."""
    kinds = [block["type"] for block in message["content"]]
    assert kinds[:3] == ["text", "server_tool_use", "web_search_tool_result"], kinds
    return message["content"][1], message["content"][2], None


def test_a_failing_service_is_a_search_error_not_a_failed_answer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with fake_search() as failing:
        failing.status = 503
        with _server(
            tmp_path_factory, "--web-search", "searxng", "--web-search-url", failing.url
        ) as server:
            message = _ask(server, "Please search the web for it.")
    _use, result, text = _searched(message)
    assert result["content"] == {
        "type": "web_search_tool_result_error",
        "error_code": "unavailable",
    }
    assert text["text"] == FAILED_ANSWER and "citations" not in text
    assert message["usage"]["server_tool_use"]["web_search_requests"] == 0


@pytest.mark.parametrize("backend", ["brave", "tavily"])
def test_brave_and_tavily_with_the_key(
    backend: str, search: FakeSearch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    url = search.url + ("/res/v1/web/search" if backend == "brave" else "/search")
    env = {"MAESTRO_WEB_SEARCH_API_KEY": KEY}
    with _server(
        tmp_path_factory, "--web-search", backend, "--web-search-url", url, env=env
    ) as server:
        message = _ask(server, "Please search the web for it.")
        log = server.stderr_text()
    _, result, text = _searched(message)
    assert result["content"][0]["url"] == PAGE_URL
    assert text["citations"][0]["url"] == PAGE_URL
    assert KEY not in log


def test_a_later_turn_gives_the_model_the_earlier_search(searxng_server: BridgeServer) -> None:
    """The blocks come back in the history: the model reads the query and the results (their
    snippets carried in `encrypted_content`), not a placeholder."""
    first = _ask(searxng_server, "Please search the web for it.", stream=False)
    body = {
        "model": "sim-echo",
        "max_tokens": 4096,
        "messages": [
            {"role": "user", "content": "Please search the web for it."},
            {"role": "assistant", "content": first["content"]},
            {"role": "user", "content": "What did you find?"},
        ],
        "tools": [{"type": "web_search_20250305", "name": "web_search"}],
    }
    reply = post(f"{searxng_server.root_url}/v1/messages", body)
    assert reply.status_code == 200, reply.text
    editor_request = json.loads(reply.json()["content"][0]["text"])
    history = editor_request["messages"][1]["content"][0]["value"]
    assert f"[searched the web for: {QUERY}]" in history
    assert f"- {PAGE_TITLE} ({PAGE_URL})" in history
    assert "The bridge runs hosted web search tools through SearXNG & friends." in history


def test_tool_choice_any_is_met_by_a_search(searxng_server: BridgeServer) -> None:
    """With `any` and several tools, Copilot is asked for a call in an instruction and the
    answer is held until one comes (bridge/core/copilot/required.py): a search is one."""
    body = {
        "model": "sim-echo",
        "max_tokens": 512,
        "messages": [{"role": "user", "content": "Please search the web for it."}],
        "tools": [
            {"type": "web_search_20250305", "name": "web_search"},
            {"name": "lookup", "input_schema": {"type": "object"}},
        ],
        "tool_choice": {"type": "any"},
    }
    reply = post(f"{searxng_server.root_url}/v1/messages", body)
    assert reply.status_code == 200, reply.text
    _, _, text = _searched(reply.json())
    assert text["text"] == ANSWER
