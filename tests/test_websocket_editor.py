"""WebSocket mode against the real language server, with the editor (and its model) in this
test process: what reaches the model on a continuation, editor failures mid-turn, and the
cancelling of editor requests when a connection ends early.

The model is the simulated model plus recording, a scripted failure and a `slow` model that
waits after its first words (so a turn is reliably still running when a test needs it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from recording_model import RecordingModel, running_editor
from spec_validation import validate_stream, validate_websocket_error

from bridge.core.parts import EditorError, TextPart
from headless_editor.chat_types import ChatRequest

WAIT = 20.0  # against hangs only


@contextlib.asynccontextmanager
async def running_socket_editor(
    options: dict[str, Any],
) -> AsyncIterator[tuple[str, RecordingModel]]:
    """recording_model.running_editor, with the WebSocket URL of `/v1/responses`."""
    async with running_editor(options) as (url, model):
        yield url.replace("http://", "ws://", 1) + "/responses", model


@pytest.fixture
async def editor() -> AsyncIterator[tuple[str, RecordingModel]]:
    async with running_socket_editor({}) as pair:
        yield pair


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        yield http


async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    message = await ws.receive(timeout=WAIT)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    event: dict[str, Any] = json.loads(message.data)
    return event


async def turn(ws: aiohttp.ClientWebSocketResponse, **create: Any) -> list[dict[str, Any]]:
    await ws.send_str(json.dumps({"type": "response.create", **create}))
    events = [await receive(ws)]
    while events[-1]["type"] not in ("error", *TERMINAL):
        events.append(await receive(ws))
    if events[-1]["type"] == "error":
        validate_websocket_error(events[-1])
    else:
        validate_stream(events)
    return events


TERMINAL = ("response.completed", "response.failed", "response.incomplete")


def texts(request: ChatRequest) -> list[tuple[str, str]]:
    """(role, text) of every text part the model was given."""
    return [
        (message.role, part.value)
        for message in request.messages
        for part in message.content
        if isinstance(part, TextPart)
    ]


async def test_continuation_gives_the_model_the_whole_conversation(
    editor: tuple[str, RecordingModel], session: aiohttp.ClientSession
) -> None:
    url, model = editor
    async with session.ws_connect(url) as ws:
        first = await turn(ws, model="sim-echo", instructions="Be brief.", input="I am Ada.")
        response_id = first[-1]["response"]["id"]
        await turn(ws, model="sim-echo", input="Who am I?", previous_response_id=response_id)
    assert texts(model.requests[-1]) == [
        # Instructions are not carried over to the continuation (as with OpenAI).
        ("user", "I am Ada."),
        ("assistant", "You said: I am Ada."),
        ("user", "Who am I?"),
    ]


async def test_editor_failure_mid_turn_fails_the_response_and_evicts(
    editor: tuple[str, RecordingModel], session: aiohttp.ClientSession
) -> None:
    url, model = editor
    async with session.ws_connect(url) as ws:
        first = await turn(ws, model="sim-echo", input="hello")
        response_id = first[-1]["response"]["id"]
        model.fail_next = EditorError("Blocked", "too many requests")
        failed = await turn(ws, model="sim-echo", input="more", previous_response_id=response_id)
        assert failed[-1]["type"] == "response.failed"
        assert failed[-1]["response"]["error"]["code"] == "rate_limit_exceeded"
        again = await turn(ws, model="sim-echo", input="more", previous_response_id=response_id)
        assert again[-1]["error"]["code"] == "previous_response_not_found"
        # The connection itself is fine.
        fresh = await turn(ws, model="sim-echo", input="fresh")
        assert fresh[-1]["type"] == "response.completed"


async def test_editor_failure_before_the_first_part_is_an_error_event_and_evicts(
    editor: tuple[str, RecordingModel], session: aiohttp.ClientSession
) -> None:
    """As over HTTP, where it is the HTTP status: nothing of the response went out yet."""
    url, model = editor
    async with session.ws_connect(url) as ws:
        first = await turn(ws, model="sim-echo", input="hello")
        response_id = first[-1]["response"]["id"]
        model.error = EditorError("Blocked", "too many requests")
        failed = await turn(ws, model="sim-echo", input="more", previous_response_id=response_id)
        assert [event["type"] for event in failed] == ["error"]  # no response.created
        assert failed[0]["status"] == 429
        assert failed[0]["error"]["code"] == "rate_limit_exceeded"
        assert failed[0]["headers"] == {"retry-after": "10"}
        model.error = None
        again = await turn(ws, model="sim-echo", input="more", previous_response_id=response_id)
        assert again[-1]["error"]["code"] == "previous_response_not_found"
        fresh = await turn(ws, model="sim-echo", input="fresh")
        assert fresh[-1]["type"] == "response.completed"


async def test_keepalive_frames_while_the_model_is_silent(session: aiohttp.ClientSession) -> None:
    async with running_socket_editor({"keepaliveSeconds": 0.1}) as (url, model):
        async with session.ws_connect(url) as ws:
            await ws.send_str(
                json.dumps({"type": "response.create", "model": "slow", "input": "a"})
            )
            events = [await receive(ws)]
            while [e["type"] for e in events].count("keepalive") < 2:
                events.append(await receive(ws))
        types = [event["type"] for event in events]
        assert types.index("response.output_text.delta") < types.index("keepalive")
        assert [event["sequence_number"] for event in events] == list(range(len(events)))
        await asyncio.wait_for(model.cancelled.wait(), WAIT)  # closing cancelled the chat


async def test_second_create_is_rejected_while_the_first_runs(
    editor: tuple[str, RecordingModel], session: aiohttp.ClientSession
) -> None:
    url, model = editor
    async with session.ws_connect(url) as ws:
        await ws.send_str(json.dumps({"type": "response.create", "model": "slow", "input": "a"}))
        while (await receive(ws))["type"] != "response.output_text.delta":
            pass
        await ws.send_str(
            json.dumps({"type": "response.create", "model": "sim-echo", "input": "b"})
        )
        event = await receive(ws)
        validate_websocket_error(event)
        assert event["error"]["code"] == "response_already_in_progress"
        assert len(model.requests) == 1  # the second never reached the editor


async def test_closing_the_socket_cancels_the_editor_request(
    editor: tuple[str, RecordingModel], session: aiohttp.ClientSession
) -> None:
    url, model = editor
    async with session.ws_connect(url) as ws:
        await ws.send_str(json.dumps({"type": "response.create", "model": "slow", "input": "a"}))
        while (await receive(ws))["type"] != "response.output_text.delta":
            pass
    await asyncio.wait_for(model.cancelled.wait(), 5)


async def test_time_limit_cancels_a_running_response(session: aiohttp.ClientSession) -> None:
    async with running_socket_editor({"limits": {"websocketMaxSeconds": 1.5}}) as (url, model):
        async with session.ws_connect(url) as ws:
            await ws.send_str(
                json.dumps({"type": "response.create", "model": "slow", "input": "a"})
            )
            event = await receive(ws)
            while event["type"] != "error":
                assert event["type"] not in TERMINAL, event
                event = await receive(ws)
            validate_websocket_error(event)
            assert event["error"]["code"] == "websocket_connection_limit_reached"
            closing = await ws.receive(timeout=WAIT)
            assert closing.type == aiohttp.WSMsgType.CLOSE
        await asyncio.wait_for(model.cancelled.wait(), 5)
