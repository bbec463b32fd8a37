"""Request conversion seen by real clients: orphan tool results, instructions alone, notes.

Over HTTP the real openai SDK talks to a real `maestro-bridge serve`; over WebSocket the
language server runs with the editor (a recording simulated model) in this test process, so
the test sees what reached the model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import openai
import pytest
from conftest import BridgeServer
from openai import OpenAI
from recording_model import RecordingModel
from spec_validation import validate_response, validate_stream, validate_websocket_error

from bridge.core.backend import TextPart
from headless_editor.editor import HeadlessEditor

WAIT = 20.0  # against hangs only
TERMINAL = ("response.completed", "response.failed", "response.incomplete")
CALL = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "Sunny."}
ORPHAN = {"type": "function_call_output", "call_id": "call_gone", "output": "stale"}


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[OpenAI]:
    with OpenAI(base_url=bridge_server.base_url, api_key="unused", max_retries=0) as sdk:
        yield sdk


# --------------------------------------------------------------------------- HTTP


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_orphan_tool_output_is_a_400(client: OpenAI, stream: bool) -> None:
    items: Any = [{"role": "user", "content": "Weather?"}, CALL, OUTPUT, ORPHAN]
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="sim-echo", input=items, stream=stream)

    error = info.value.body
    assert isinstance(error, dict)
    assert error["type"] == "invalid_request_error"
    assert error["param"] == "input[3].call_id"
    assert "call_gone" in error["message"]


def test_orphan_custom_tool_output_is_a_400(client: OpenAI) -> None:
    orphan = {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done."}
    with pytest.raises(openai.BadRequestError) as info:
        client.responses.create(model="sim-echo", input=[orphan])  # type: ignore[list-item]
    assert isinstance(info.value.body, dict) and info.value.body["param"] == "input[0].call_id"


def test_answered_call_still_completes(client: OpenAI) -> None:
    items: Any = [{"role": "user", "content": "Weather?"}, CALL, OUTPUT]
    response = client.responses.create(model="sim-echo", input=items)
    validate_response(response.model_dump(mode="json", exclude_unset=True))
    assert response.status == "completed"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_instructions_alone_are_answered(client: OpenAI, stream: bool) -> None:
    if stream:  # `responses.stream()` itself insists on `input`; `create` does not
        events = client.responses.create(model="sim-echo", instructions="Say hi.", stream=True)
        final = validate_stream([e.model_dump(mode="json", exclude_unset=True) for e in events])
        text = final["output"][0]["content"][0]["text"]
    else:
        response = client.responses.create(model="sim-echo", instructions="Say hi.")
        validate_response(response.model_dump(mode="json", exclude_unset=True))
        text = response.output_text
    assert text == "You said: Say hi."


def test_neither_input_nor_instructions_is_still_a_400(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.post("/responses", body={"model": "sim-echo"}, cast_to=dict)
    assert isinstance(info.value.body, dict) and info.value.body["param"] == "input"


def test_unknown_content_part_is_a_note_the_model_reads(client: OpenAI) -> None:
    part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    items: Any = [{"role": "user", "content": [part]}]
    response = client.responses.create(model="sim-echo", input=items)
    assert response.output_text == "You said: [content of type 'input_audio' not included]"


# --------------------------------------------------------------------------- WebSocket


@pytest.fixture
async def editor() -> AsyncIterator[tuple[str, RecordingModel]]:
    model = RecordingModel()
    editor = HeadlessEditor(model=model)
    url = await editor.start({"port": 0})
    try:
        yield url.replace("http://", "ws://", 1) + "/responses", model
    finally:
        await editor.stop()


async def turn(ws: aiohttp.ClientWebSocketResponse, **create: Any) -> list[dict[str, Any]]:
    await ws.send_str(json.dumps({"type": "response.create", **create}))
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] not in ("error", *TERMINAL):
        message = await ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        events.append(json.loads(message.data))
    if events[-1]["type"] == "error":
        validate_websocket_error(events[-1])
    else:
        validate_stream(events)
    return events


async def test_websocket_orphan_output_fails_the_turn_and_evicts(
    editor: tuple[str, RecordingModel],
) -> None:
    url, model = editor
    tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        first = await turn(ws, model="sim-echo", input="Weather?", tools=[tool])
        (call,) = [i for i in first[-1]["response"]["output"] if i["type"] == "function_call"]
        first_id = first[-1]["response"]["id"]

        # The kept history holds the call: its output continues the conversation.
        answered = {"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
        second = await turn(
            ws, model="sim-echo", input=[answered], previous_response_id=first_id, tools=[tool]
        )
        assert second[-1]["type"] == "response.completed"
        second_id = second[-1]["response"]["id"]
        asked = len(model.requests)

        # An output whose call is in neither the kept history nor the new items.
        failed = await turn(ws, model="sim-echo", input=[ORPHAN], previous_response_id=second_id)
        assert failed[-1]["type"] == "error"
        assert failed[-1]["status"] == 400
        assert failed[-1]["error"]["param"].endswith("].call_id")
        assert "call_gone" in failed[-1]["error"]["message"]
        assert len(model.requests) == asked  # the editor was not asked

        again = await turn(ws, model="sim-echo", input="more", previous_response_id=second_id)
        assert again[-1]["error"]["code"] == "previous_response_not_found"


async def test_websocket_instructions_alone(editor: tuple[str, RecordingModel]) -> None:
    url, model = editor
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        events = await turn(ws, model="sim-echo", instructions="Say hi.")
    assert events[-1]["type"] == "response.completed"
    texts = [
        p.value for m in model.requests[-1].messages for p in m.content if isinstance(p, TextPart)
    ]
    assert texts == ["Say hi."]
