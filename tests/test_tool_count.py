"""At most 128 tools offered at once (GitHub Copilot throws above it): a clear 400 in every
dialect's own envelope, `param` naming the tools field, never a silent cut; 128 still pass.
`limits.maxTools` (512) stays the bound on what a body may hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer, running_bridge_server
from gemini_http import model_url
from plain_http import Reply, post

from bridge.core.backend import ChatTool, ModelInfo
from bridge.core.chat_request import RequestOptions, editor_chat
from bridge.core.errors import ApiError
from bridge.core.tool_count import MAX_OFFERED_TOOLS, check_tool_count

SCHEMA: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}


def chat_tools(count: int) -> list[ChatTool]:
    return [ChatTool(name=f"t{i}", description="d", inputSchema=SCHEMA) for i in range(count)]


def test_128_tools_pass_and_129_do_not() -> None:
    check_tool_count(chat_tools(MAX_OFFERED_TOOLS))
    with pytest.raises(ApiError) as caught:
        check_tool_count(chat_tools(MAX_OFFERED_TOOLS + 1))
    error = caught.value
    assert (error.status, error.param, error.code) == (400, "tools", "too_many_tools")
    assert "129 tools" in error.message and "at most 128" in error.message
    assert "defer_loading" in error.message


def test_every_dialect_builds_its_request_through_the_check() -> None:
    with pytest.raises(ApiError):
        editor_chat(ModelInfo(id="m"), [], chat_tools(200), "auto", RequestOptions(), None, "why")


# Through a real serve, in each dialect


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server("--default-model", "sim-echo") as started:
        yield started


def send(server: BridgeServer, dialect: str, count: int) -> Reply:
    names = [f"tool_{i}" for i in range(count)]
    if dialect == "responses":
        tools: list[Any] = [{"type": "function", "name": n, "parameters": SCHEMA} for n in names]
        return post(
            f"{server.base_url}/responses", {"model": "sim-echo", "input": "hi", "tools": tools}
        )
    if dialect == "messages":
        tools = [{"name": n, "input_schema": SCHEMA} for n in names]
        body = {"model": "sim-echo", "max_tokens": 50, "tools": tools}
        return post(
            f"{server.base_url}/messages", {**body, "messages": [{"role": "user", "content": "hi"}]}
        )
    if dialect == "chat":
        tools = [{"type": "function", "function": {"name": n, "parameters": SCHEMA}} for n in names]
        messages = [{"role": "user", "content": "hi"}]
        return post(
            f"{server.base_url}/chat/completions",
            {"model": "sim-echo", "messages": messages, "tools": tools},
        )
    declarations = [{"name": n, "parameters": SCHEMA} for n in names]
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    body["tools"] = [{"functionDeclarations": declarations}]
    return post(model_url(server, "sim-echo", "generateContent"), body)


DIALECTS = ["responses", "messages", "chat", "gemini"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_129_tools_are_a_400_in_the_dialects_envelope(server: BridgeServer, dialect: str) -> None:
    reply = send(server, dialect, MAX_OFFERED_TOOLS + 1)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert "at most 128 tools" in error["message"]
    if dialect == "messages":
        assert reply.json()["type"] == "error"
        assert error["type"] == "invalid_request_error"
    elif dialect == "gemini":
        assert error["status"] == "INVALID_ARGUMENT" and error["code"] == 400
        (violation,) = error["details"][0]["fieldViolations"]
        assert violation["field"] == "tools"
    else:
        assert error["param"] == "tools" and error["code"] == "too_many_tools"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_128_tools_are_answered(server: BridgeServer, dialect: str) -> None:
    reply = send(server, dialect, MAX_OFFERED_TOOLS)
    assert reply.status_code == 200, reply.text
