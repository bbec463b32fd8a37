"""The Responses fast path over HTTP (an in-process app, a recording stand-in for the editor):
ordinary bodies take it and reach the editor as the exact path's reading would; odd bodies get
the exact path's answer (test_responses_fast_path.py has the reading itself)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from functools import partial

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from responses_bodies import bench_bodies, client_bodies, crafted
from test_responses_fast_path import (
    EXACT_ONLY,
    ODD,
    UNDECLARED_KEYS,
    encoded,
    exact,
    outcome,
)

from bridge.app import create_app
from bridge.core import strict_json
from bridge.core.backend import ChatRequest, ModelInfo, ResponsePart, TextPart
from bridge.core.errors import ApiError
from bridge.core.strict_json import JsonInputError
from bridge.responses.body import PATHS
from bridge.responses.request import CreateResponseRequest
from bridge.responses.responder import plan_response
from bridge.settings import BridgeSettings


def _planned_chat(request: CreateResponseRequest, model: ModelInfo) -> ChatRequest:
    return plan_response(request, model).chat


class RecordingEditor:
    """A stand-in editor (the bridge's route is what is tested): one model, one text part,
    and the chat requests it was sent."""

    def __init__(self) -> None:
        self.chats: list[ChatRequest] = []

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="sim-echo", name="Echo")]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text) // 4

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.chats.append(request)
        yield [TextPart(value="ok")]


@pytest.fixture
async def served() -> AsyncIterator[
    tuple[TestClient[web.Request, web.Application], RecordingEditor]
]:
    editor = RecordingEditor()
    async with TestClient(TestServer(create_app(editor, BridgeSettings()))) as client:
        yield client, editor


HTTP_BODIES = {
    name: {**body, "model": "sim-echo", "stream": False}
    for name, body in {**client_bodies(), **bench_bodies(), **crafted()}.items()
}


async def test_over_http_ordinary_bodies_take_the_fast_path_and_odd_ones_answer_as_before(
    served: tuple[TestClient[web.Request, web.Application], RecordingEditor],
) -> None:
    """The route's chat request is the one the exact path's reading makes; a 400 is its 400."""
    client, editor = served
    model = (await editor.list_models())[0]
    fast_taken = 0
    for name, body in sorted(HTTP_BODIES.items()):
        expected = exact(body)
        before = PATHS.copy()
        reply = await client.post("/v1/responses", data=encoded(body))
        answer = await reply.json()
        taken = set(PATHS - before)
        if isinstance(expected, ApiError):
            assert taken == {"exact"}, name
            got = (reply.status, answer["error"]["message"], answer["error"]["param"])
            assert got == (expected.status, expected.message, expected.param), name
            continue
        if name in EXACT_ONLY:
            assert taken == {"exact"}, name
        else:
            read = {"stripped"} if name in UNDECLARED_KEYS else {"fast"}
            assert taken in (read, {"typeless"}), (name, taken)
            fast_taken += 1
        planned = outcome(partial(_planned_chat, expected, model))
        if reply.status != 200:
            error = answer["error"]
            assert planned == (
                "error",
                reply.status,
                error["message"],
                error["param"],
                error["code"],
            )
            continue
        chat = editor.chats[-1]
        assert (chat.messages, chat.tools, chat.toolMode) == (
            planned.messages,
            planned.tools,
            planned.toolMode,
        ), name
    assert fast_taken >= 40


async def test_over_http_odd_bodies_answer_as_the_exact_path_does(
    served: tuple[TestClient[web.Request, web.Application], RecordingEditor],
) -> None:
    client, _ = served
    for name, raw in sorted(ODD.items()):
        try:
            expected = exact(strict_json.decode(raw))
        except JsonInputError as exc:
            expected = ApiError(400, exc.message, param=exc.param)
        before = PATHS.copy()
        reply = await client.post("/v1/responses", data=raw)
        answer = await reply.json()
        read = {"orphan output": {"fast"}, "duplicate type": {"stripped"}}.get(name, {"exact"})
        assert set(PATHS - before) == read, name
        if isinstance(expected, ApiError):
            got = (reply.status, answer["error"]["message"], answer["error"]["param"])
            assert got == (expected.status, expected.message, expected.param), name
