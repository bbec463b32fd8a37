"""Deferred tools (`defer_loading: true`) reach the editor only once a tool search loaded them,
as Anthropic's and OpenAI's APIs offer them: Messages' `tool_reference` blocks (Claude Code's
ToolSearch), Responses' client-run `tool_search` and its `tool_search_output` items. Without a
search the editor could run (a server-side one), deferred tools are offered right away."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from plain_http import post

from bridge.anthropic.plan import parse_messages_request, plan_messages
from bridge.core.backend import ModelInfo, TextPart, ToolCallPart, ToolResultPart
from bridge.core.errors import ApiError
from bridge.responses.convert_input import to_chat_messages
from bridge.responses.request import parse_create_request
from bridge.responses.tools import ToolTarget, plan_request_tools

MODEL = ModelInfo(id="sim-echo", maxInputTokens=100_000)
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}


# Messages


def tool(name: str, deferred: bool = False) -> dict[str, Any]:
    return {"name": name, "input_schema": SCHEMA, **({"defer_loading": True} if deferred else {})}


SEARCH = tool("ToolSearch")
SEARCH_CALL = {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "a"}}


def loaded_history(*names: str) -> list[dict[str, Any]]:
    """Claude Code's shape: the search's result holds `tool_reference` blocks, then a text."""
    refs = [{"type": "tool_reference", "tool_name": name} for name in names]
    return [
        {"role": "user", "content": "Use probe a."},
        {"role": "assistant", "content": [SEARCH_CALL]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": refs},
                {"type": "text", "text": "Tool loaded."},
            ],
        },
    ]


def messages_plan(tools: list[Any], messages: list[Any] | None = None, **extra: Any) -> Any:
    body = {
        "model": "claude-opus-5-5",
        "max_tokens": 100,
        "messages": messages or [{"role": "user", "content": "hi"}],
        "tools": tools,
        **extra,
    }
    return plan_messages(parse_messages_request(body), MODEL)


def offered(plan: Any) -> list[str]:
    return [t.name for t in plan.chat.tools]


def test_deferred_messages_tools_wait_until_a_tool_reference_loads_them() -> None:
    tools = [SEARCH, tool("probe_a", True), tool("probe_b", True)]
    assert offered(messages_plan(tools)) == ["ToolSearch"]
    assert offered(messages_plan(tools, loaded_history("probe_a"))) == ["ToolSearch", "probe_a"]


def test_claude_codes_placeholder_is_never_offered() -> None:
    # Claude Code 2.1.330 sends it deferred "to keep deferred loading active; never call it".
    placeholder = {**tool("DeferredToolPlaceholder", True), "input_schema": {"type": "object"}}
    got = messages_plan([tool("Bash"), SEARCH, placeholder, tool("mcp__many__probe_042", True)])
    assert offered(got) == ["Bash", "ToolSearch"]


def test_the_reference_reads_as_a_loaded_tool() -> None:
    got = messages_plan([SEARCH, tool("probe_a", True)], loaded_history("probe_a"))
    results = [p for m in got.chat.messages for p in m.content if isinstance(p, ToolResultPart)]
    assert results[0].content == [TextPart(value="[tool probe_a loaded: it can be called now]")]


def test_300_deferred_tools_with_a_search_pass_the_128_limit() -> None:
    many = [tool(f"probe_{i}", True) for i in range(300)]
    got = messages_plan([SEARCH, *many], loaded_history("probe_7", "probe_299"))
    assert offered(got) == ["ToolSearch", "probe_7", "probe_299"]


def test_anthropics_server_side_search_offers_deferred_tools_right_away() -> None:
    server_search = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}
    got = messages_plan([server_search, tool("probe_a", True), tool("Read")])
    assert offered(got) == ["probe_a", "Read"]  # the search itself cannot run in the editor
    bm25 = {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    many = [tool(f"probe_{i}", True) for i in range(129)]
    with pytest.raises(ApiError) as caught:
        messages_plan([bm25, *many])
    assert caught.value.param == "tools" and "at most 128" in caught.value.message


def test_a_server_search_result_in_the_history_loads_its_tools() -> None:
    server_use = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_regex",
        "input": {"query": "probe"},
    }
    found = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": "probe_b"}],
        },
    }
    history = [
        {"role": "user", "content": "find it"},
        {"role": "assistant", "content": [server_use, found]},
        {"role": "user", "content": "now call it"},
    ]
    got = messages_plan([SEARCH, tool("probe_a", True), tool("probe_b", True)], history)
    assert offered(got) == ["ToolSearch", "probe_b"]


def test_choosing_a_deferred_tool_not_loaded_is_a_400() -> None:
    with pytest.raises(ApiError) as caught:
        messages_plan(
            [SEARCH, tool("probe_a", True)], tool_choice={"type": "tool", "name": "probe_a"}
        )
    assert caught.value.param == "tool_choice.name"


# Responses


CLIENT_SEARCH: dict[str, Any] = {
    "type": "tool_search",
    "execution": "client",
    "description": "Find tools.",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
}


def function(name: str, deferred: bool = False) -> dict[str, Any]:
    extra = {"defer_loading": True} if deferred else {}
    return {"type": "function", "name": name, "parameters": SCHEMA, **extra}


def searched_input(*loaded: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "find the probe"},
        {
            "type": "tool_search_call",
            "call_id": "call_s1",
            "execution": "client",
            "arguments": {"query": "probe"},
            "status": "completed",
        },
        {
            "type": "tool_search_output",
            "call_id": "call_s1",
            "execution": "client",
            "status": "completed",
            "tools": list(loaded),
        },
        {"role": "user", "content": "go on"},
    ]


def responses_request(tools: list[Any], items: Any = "hi") -> Any:
    return parse_create_request({"model": "sim-echo", "input": items, "tools": tools})


def test_a_client_run_tool_search_is_offered_as_a_function() -> None:
    plan = plan_request_tools(responses_request([CLIENT_SEARCH, function("probe_a", True)]))
    assert [t.name for t in plan.tools] == ["tool_search"]
    (search,) = plan.tools
    assert search.description == "Find tools."
    assert search.inputSchema == CLIENT_SEARCH["parameters"]
    assert plan.targets["tool_search"] == ToolTarget("tool_search", "tool_search")


def test_deferred_functions_wait_for_a_tool_search_output() -> None:
    namespace = {
        "type": "namespace",
        "name": "mcp",
        "description": "MCP tools",
        "tools": [function("probe_c", True), function("probe_d", True)],
    }
    tools = [function("probe_a", True), function("probe_b", True), namespace, CLIENT_SEARCH]
    loaded = [
        function("probe_b", True),
        {**namespace, "tools": [function("probe_d", True)]},
        function("only_loaded", True),  # defined by the search's output alone
    ]
    plan = plan_request_tools(responses_request(tools, searched_input(*loaded)))
    assert [t.name for t in plan.tools] == ["probe_b", "mcp__probe_d", "tool_search", "only_loaded"]
    assert plan.targets["mcp__probe_d"] == ToolTarget("function", "probe_d", "mcp")


def test_a_hosted_tool_search_offers_deferred_functions_right_away() -> None:
    plan = plan_request_tools(responses_request([{"type": "tool_search"}, function("a", True)]))
    assert [t.name for t in plan.tools] == ["a"]


def test_tool_search_items_become_a_call_and_its_result() -> None:
    messages = to_chat_messages(responses_request([CLIENT_SEARCH], searched_input(function("x"))))
    parts = [(m.role, p) for m in messages for p in m.content]
    assert parts[1] == (
        "assistant",
        ToolCallPart(callId="call_s1", name="tool_search", input={"query": "probe"}),
    )
    role, result = parts[2]
    assert role == "user" and isinstance(result, ToolResultPart)
    assert result.callId == "call_s1"
    assert result.content == [TextPart(value="Tools loaded (they can be called now): x")]


def test_server_run_tool_search_items_are_left_out() -> None:
    items = [
        {"role": "user", "content": "hi"},
        {"type": "tool_search_call", "execution": "server", "arguments": {"paths": ["a"]}},
        {"type": "tool_search_output", "execution": "server", "tools": [function("a")]},
    ]
    messages = to_chat_messages(responses_request([], items))
    assert [p for m in messages for p in m.content] == [TextPart(value="hi")]


# Through a real serve: the simulated model calls the first tool it is offered.


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server("--default-model", "sim-echo") as started:
        yield started


def test_messages_serve_offers_the_tool_a_reference_loaded(server: BridgeServer) -> None:
    body = {
        "model": "claude-opus-5-5",
        "max_tokens": 200,
        "messages": loaded_history("probe_a"),
        "tools": [tool("probe_b", True), tool("probe_a", True), SEARCH],
    }
    reply = post(f"{server.base_url}/messages", body)
    assert reply.status_code == 200, reply.text
    calls = [b for b in reply.json()["content"] if b["type"] == "tool_use"]
    assert [c["name"] for c in calls] == ["probe_a"]


def test_responses_serve_answers_a_search_as_a_tool_search_call(server: BridgeServer) -> None:
    body = {"model": "sim-echo", "input": "hi", "tools": [CLIENT_SEARCH, function("a", True)]}
    reply = post(f"{server.base_url}/responses", body)
    assert reply.status_code == 200, reply.text
    (call,) = [i for i in reply.json()["output"] if i["type"] != "message"]
    assert call["type"] == "tool_search_call" and call["execution"] == "client"
    assert call["status"] == "completed" and call["call_id"] and call["id"].startswith("tsc_")
    assert isinstance(call["arguments"], dict)  # an object, as OpenAI sends it


def test_responses_serve_offers_the_tools_a_search_loaded(server: BridgeServer) -> None:
    tools = [function("probe_b", True), function("probe_a", True), CLIENT_SEARCH]
    body = {"model": "sim-echo", "input": searched_input(function("probe_a")), "tools": tools}
    reply = post(f"{server.base_url}/responses", body)
    assert reply.status_code == 200, reply.text
    (call,) = [i for i in reply.json()["output"] if i["type"] == "function_call"]
    assert call["name"] == "probe_a" and isinstance(json.loads(call["arguments"]), dict)
