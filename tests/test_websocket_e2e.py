"""WebSocket mode end to end: a real `maestro-bridge serve`, aiohttp and the openai SDK as clients.

Every event is checked against the Open Responses schemas (tests/spec_validation.py): each
turn's events as a stream (`validate_stream`), each error against WebSocketErrorEvent.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer, StartServer, stop_bridge_server
from openai import AsyncOpenAI
from samples import WEATHER_TOOL, output_text
from spec_validation import validate_stream, validate_websocket_error

TIMEOUT = aiohttp.ClientTimeout(total=30)
TERMINAL = ("response.completed", "response.failed", "response.incomplete")
WAIT = 20.0  # generous, against hangs only


def ws_url(server: BridgeServer, prefix: str = "/v1") -> str:
    return server.root_url.replace("http://", "ws://", 1) + f"{prefix}/responses"


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


async def receive(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    message = await ws.receive(timeout=WAIT)
    assert message.type == aiohttp.WSMsgType.TEXT, f"expected a text frame, got {message}"
    event = json.loads(message.data)
    assert isinstance(event, dict)
    return event


async def turn(ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> list[dict[str, Any]]:
    """Send one create frame; the events up to its terminal event, or its one error event."""
    await ws.send_str(json.dumps(frame))
    events: list[dict[str, Any]] = []
    while True:
        event = await receive(ws)
        events.append(event)
        if event["type"] == "error":
            assert len(events) == 1, f"an error event in the middle of a response: {events}"
            validate_websocket_error(event)
            return events
        if event["type"] in TERMINAL:
            validate_stream(events)
            return events


async def completed(ws: aiohttp.ClientWebSocketResponse, **create: Any) -> dict[str, Any]:
    events = await turn(ws, {"type": "response.create", **create})
    assert events[-1]["type"] == "response.completed", events[-1]
    response: dict[str, Any] = events[-1]["response"]
    return response


async def error(
    ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any] | str, code: str, status: int = 400
) -> dict[str, Any]:
    if isinstance(frame, str):
        await ws.send_str(frame)
        events = [await receive(ws)]
        validate_websocket_error(events[0])
    else:
        events = await turn(ws, frame)
    event = events[-1]
    assert event["type"] == "error", event
    assert (event["status"], event["error"]["code"]) == (status, code), event
    return event


# --------------------------------------------------------------------------- turns


async def test_two_turns_on_one_socket_and_a_continuation(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        first = await completed(ws, model="sim-echo", input="My name is Ada.", tools=[WEATHER_TOOL])
        [call] = [item for item in first["output"] if item["type"] == "function_call"]
        assert call["name"] == "get_weather"
        assert first["previous_response_id"] is None

        # Only the tool's output is sent: the model must see the call from the cached turn.
        result = {"type": "function_call_output", "call_id": call["call_id"], "output": "sunny"}
        second = await completed(
            ws,
            model="sim-echo",
            input=[result],
            tools=[WEATHER_TOOL],
            previous_response_id=first["id"],
        )
        assert second["previous_response_id"] == first["id"]
        assert output_text(second) == "The tool get_weather returned 5 characters."
        assert second["usage"]["input_tokens"] > first["usage"]["input_tokens"]

        # A fresh turn (no previous_response_id) on the same socket starts over.
        third = await completed(ws, model="sim-echo", input="Fresh start.")
        assert output_text(third) == "You said: Fresh start."
        assert third["id"] not in (first["id"], second["id"])


async def test_nested_create_and_path_without_v1(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server, prefix="")) as ws:
        events = await turn(
            ws, {"type": "response.create", "response": {"model": "sim-echo", "input": "nested"}}
        )
        assert output_text(events[-1]["response"]) == "You said: nested"


async def test_continuation_chains_over_many_turns(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        previous = await completed(ws, model="sim-echo", input="one")
        tokens = [previous["usage"]["input_tokens"]]
        for word in ("two", "three"):
            previous = await completed(
                ws, model="sim-echo", input=word, previous_response_id=previous["id"]
            )
            assert output_text(previous) == f"You said: {word}"
            tokens.append(previous["usage"]["input_tokens"])
        assert tokens == sorted(tokens) and len(set(tokens)) == 3  # the history grows


async def test_unknown_previous_response(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        frame = {"type": "response.create", "model": "sim-echo", "input": "x"}
        event = await error(
            ws, {**frame, "previous_response_id": "resp_nope"}, "previous_response_not_found"
        )
        assert event["error"]["param"] == "previous_response_id"
        first = await completed(ws, model="sim-echo", input="kept")
        await error(
            ws, {**frame, "previous_response_id": "resp_other"}, "previous_response_not_found"
        )
        # An unknown id does not evict the cached response.
        await completed(ws, model="sim-echo", input="y", previous_response_id=first["id"])


async def test_reconnect_cannot_continue_the_old_connection(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        first = await completed(ws, model="sim-echo", input="before")
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        frame = {
            "type": "response.create",
            "model": "sim-echo",
            "input": "after",
            "previous_response_id": first["id"],
        }
        await error(ws, frame, "previous_response_not_found")
        # The usual fallback works: send the whole conversation again.
        full = [user("before"), *first["output"], user("after")]
        again = await completed(ws, model="sim-echo", input=full)
        assert output_text(again) == "You said: after"


async def test_failed_continuation_evicts_the_cached_response(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        first = await completed(ws, model="sim-echo", input="hello")
        failing = {
            "type": "response.create",
            "model": "no-such-model",
            "input": "x",
            "previous_response_id": first["id"],
        }
        await error(ws, failing, "model_not_found", status=404)
        retry = {**failing, "model": "sim-echo"}
        await error(ws, retry, "previous_response_not_found")


async def test_invalid_continuation_evicts_too(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        first = await completed(ws, model="sim-echo", input="hello")
        frame = {
            "type": "response.create",
            "model": "sim-echo",
            "input": "x",
            "previous_response_id": first["id"],
        }
        await error(ws, {**frame, "tool_choice": "required"}, "tool_not_found")
        await error(ws, frame, "previous_response_not_found")


async def test_a_failed_fresh_turn_keeps_the_cached_response(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        first = await completed(ws, model="sim-echo", input="hello")
        frame = {"type": "response.create", "model": "no-such-model", "input": "x"}
        await error(ws, frame, "model_not_found", status=404)
        await completed(ws, model="sim-echo", input="on", previous_response_id=first["id"])


async def test_generate_false_prepares_state_without_output(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        events = await turn(
            ws,
            {
                "type": "response.create",
                "model": "sim-echo",
                "input": [user("Remember the word pelican.")],
                "tools": [WEATHER_TOOL],
                "generate": False,
            },
        )
        assert [e["type"] for e in events] == [
            "response.created",
            "response.in_progress",
            "response.completed",
        ]
        warm = events[-1]["response"]
        assert warm["output"] == [] and warm["usage"]["total_tokens"] == 0
        # No new input: the model answers the warmed-up conversation.
        answer = await completed(ws, model="sim-echo", input=[], previous_response_id=warm["id"])
        assert output_text(answer) == "You said: Remember the word pelican."


async def test_generate_false_checks_the_model(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        frame = {"type": "response.create", "model": "nope", "input": [], "generate": False}
        await error(ws, frame, "model_not_found", status=404)


async def test_second_create_while_one_runs_is_rejected(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    long_reply = " ".join(f"word{i}" for i in range(3000))
    server = bridge_server_factory(
        script={"rules": [{"match": "long", "reply": [{"type": "text", "text": long_reply}]}]}
    )
    async with http.ws_connect(ws_url(server)) as ws:
        frame = {"type": "response.create", "model": "sim-echo", "input": "long"}
        # Both frames leave at once; the second arrives while the first streams.
        await ws.send_str(json.dumps(frame))
        await ws.send_str(json.dumps(frame))
        stream: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        while not stream or stream[-1]["type"] not in TERMINAL:
            event = await receive(ws)
            (errors if event["type"] == "error" else stream).append(event)
        assert len(errors) == 1, errors
        validate_websocket_error(errors[0])
        assert errors[0]["error"]["code"] == "response_already_in_progress"
        final = validate_stream(stream)
        assert output_text(final) == long_reply
        # After the first finished, the connection takes the next one.
        nxt = await completed(ws, model="sim-echo", input="next", previous_response_id=final["id"])
        assert output_text(nxt) == "You said: next"


async def test_malformed_frames_leave_the_connection_usable(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.ws_connect(ws_url(bridge_server)) as ws:
        await error(ws, "{not json", "invalid_request_error")
        await error(ws, "[]", "invalid_request_error")
        await error(ws, '{"type": "session.update"}', "invalid_request_error")
        await ws.send_bytes(b'{"type": "response.create"}')
        validate_websocket_error(await receive(ws))
        no_model: dict[str, Any] = {"type": "response.create", "input": "no model"}
        await error(ws, no_model, "missing_required_parameter")
        bad_item: dict[str, Any] = {"type": "response.create", "model": "sim-echo", "input": [3]}
        await error(ws, bad_item, "invalid_value")
        answer = await completed(ws, model="sim-echo", input="still here")
        assert output_text(answer) == "You said: still here"


async def test_plain_get_needs_an_upgrade(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    async with http.get(f"{bridge_server.base_url}/responses") as reply:
        assert reply.status == 426
        body = await reply.json()
    assert body["error"]["code"] == "websocket_upgrade_required"


async def test_http_still_rejects_previous_response_id(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {"model": "sim-echo", "input": "x", "previous_response_id": "resp_1"}
    async with http.post(f"{bridge_server.base_url}/responses", json=body) as reply:
        assert reply.status == 400
        error_body = await reply.json()
    assert error_body["error"]["code"] == "unsupported_parameter"
    assert "WebSocket" in error_body["error"]["message"]


# --------------------------------------------------------------------------- connection rules


async def test_connection_closes_at_its_time_limit(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--websocket-max-seconds", "2")
    async with http.ws_connect(ws_url(server)) as ws:
        opened = time.monotonic()
        await completed(ws, model="sim-echo", input="quick")
        event = await receive(ws)
        assert event["error"]["code"] == "websocket_connection_limit_reached", event
        validate_websocket_error(event)
        closing = await ws.receive(timeout=WAIT)
        assert closing.type == aiohttp.WSMsgType.CLOSE
        assert ws.close_code == 1000
        assert 1.5 < time.monotonic() - opened < WAIT


async def test_api_key_applies_to_the_upgrade(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--api-key", "s3cret")
    with pytest.raises(aiohttp.WSServerHandshakeError) as caught:
        async with http.ws_connect(ws_url(server)):
            pass
    assert caught.value.status == 401
    headers = {"Authorization": "Bearer s3cret"}
    async with http.ws_connect(ws_url(server), headers=headers) as ws:
        answer = await completed(ws, model="sim-echo", input="authorized")
        assert output_text(answer) == "You said: authorized"


async def test_client_leaving_mid_response_leaves_the_server_well(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    long_reply = " ".join(f"word{i}" for i in range(3000))
    server = bridge_server_factory(
        script={"rules": [{"match": "long", "reply": [{"type": "text", "text": long_reply}]}]}
    )
    async with http.ws_connect(ws_url(server)) as ws:
        await ws.send_str(
            json.dumps({"type": "response.create", "model": "sim-echo", "input": "long"})
        )
        assert (await receive(ws))["type"] == "response.created"
    async with http.ws_connect(ws_url(server)) as ws:
        answer = await completed(ws, model="sim-echo", input="after")
        assert output_text(answer) == "You said: after"
    server.assert_alive()


async def test_stopping_the_server_closes_open_connections(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory()
    async with http.ws_connect(ws_url(server)) as ws:
        await completed(ws, model="sim-echo", input="open")
        # SIGTERM; the server must still exit 0 within its stop timeout (checked inside).
        await asyncio.to_thread(stop_bridge_server, server)
        closing = await ws.receive(timeout=WAIT)
        # A close frame saying why ("going away"), not a dropped connection.
        # (close_code itself is 1006 then: the client's close reply finds the process gone.)
        assert closing.type == aiohttp.WSMsgType.CLOSE
        assert closing.data == aiohttp.WSCloseCode.GOING_AWAY


# --------------------------------------------------------------------------- the openai SDK


async def test_openai_sdk_websocket_mode(bridge_server: BridgeServer) -> None:
    client = AsyncOpenAI(base_url=bridge_server.base_url, api_key="unused", max_retries=0)
    async with client.responses.connect() as connection:

        async def one_turn(**create: Any) -> list[Any]:
            await connection.response.create(**create)
            events: list[Any] = []
            async for event in connection:
                events.append(event)
                if event.type in (*TERMINAL, "error"):
                    return events
            raise AssertionError("the connection closed mid-turn")

        first = await asyncio.wait_for(one_turn(model="sim-echo", input="Hi SDK"), WAIT)
        validate_stream([e.to_dict() for e in first])
        assert first[-1].type == "response.completed"
        assert first[-1].response.output_text == "You said: Hi SDK"

        second = await asyncio.wait_for(
            one_turn(model="sim-echo", input="more", previous_response_id=first[-1].response.id),
            WAIT,
        )
        assert second[-1].response.output_text == "You said: more"
        assert second[-1].response.previous_response_id == first[-1].response.id

        missing = await asyncio.wait_for(
            one_turn(model="sim-echo", input="x", previous_response_id="resp_gone"), WAIT
        )
        assert missing[-1].type == "error"
        validate_websocket_error(missing[-1].to_dict())
        assert missing[-1].error.code == "previous_response_not_found"
    await client.close()


async def test_model_aliases_apply_over_websocket_and_to_compaction(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--model-alias", "gpt-5.5=sim-echo")
    async with http.ws_connect(ws_url(server)) as ws:
        answer = await completed(ws, model="gpt-5.5", input="aliased")
        assert (answer["model"], output_text(answer)) == ("gpt-5.5", "You said: aliased")
        await completed(ws, model="gpt-5.5", input=[], generate=False)
    body = {"model": "gpt-5.5", "input": [user("summarise this")]}
    async with http.post(f"{server.base_url}/responses/compact", json=body) as reply:
        assert reply.status == 200, await reply.text()
        assert (await reply.json())["object"] == "response.compaction"


async def test_request_limits_apply_to_websocket_turns(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    slow = {
        "match": "slow",
        "reply": [{"type": "pause", "seconds": 3}, {"type": "text", "text": "ok"}],
    }
    server = bridge_server_factory(
        "--max-concurrent", "1", "--keepalive-seconds", "0.2", script={"rules": [slow]}
    )
    async with http.ws_connect(ws_url(server)) as busy, http.ws_connect(ws_url(server)) as ws:
        # One model request holds the only slot; a turn on another socket is told to retry.
        await busy.send_str(
            json.dumps({"type": "response.create", "model": "sim-echo", "input": "slow"})
        )
        # The model is silent: the response starts with the first keepalive.
        assert (await receive(busy))["type"] == "response.created"
        assert (await receive(busy))["type"] == "response.in_progress"
        assert (await receive(busy))["type"] == "keepalive"
        frame = {"type": "response.create", "model": "sim-echo", "input": "quick"}
        busy_error = await error(ws, frame, "too_many_concurrent_requests", status=429)
        assert busy_error["headers"] == {"retry-after": "1"}  # as OpenAI sends; Codex reads it
        tools = [WEATHER_TOOL] * 600
        await error(ws, {**frame, "tools": tools}, "array_above_max_length")
        while (await receive(busy))["type"] not in TERMINAL:
            pass
        answer = await completed(ws, model="sim-echo", input="quick")
        assert output_text(answer) == "You said: quick"
