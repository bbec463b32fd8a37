"""Compaction end to end: `POST /v1/responses/compact` on a real `maestro-bridge serve`, then the
compaction item as input of new responses over HTTP and WebSocket; aiohttp and the openai SDK.

The simulated model is scripted to answer the summary request with a known summary, so the
tests can see that the summary, and nothing else, comes back into the next request's context
(the model echoes the last message it reads: the expanded summary).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer, StartServer
from openai import AsyncOpenAI
from samples import output_text
from spec_validation import (
    validate_compaction,
    validate_response,
    validate_stream,
    validate_websocket_error,
)

from bridge.responses.compaction_codec import decode_summary

TIMEOUT = aiohttp.ClientTimeout(total=30)
SUMMARY = "SUMMARY: the user is Ada; she asked for the weather in Paris (sunny)."
SCRIPT = {
    "rules": [
        {"match": "compacting a conversation", "reply": [{"type": "text", "text": SUMMARY}]},
    ]
}
CONVERSATION: list[dict[str, Any]] = [
    {"role": "developer", "content": "Answer briefly."},
    {"role": "user", "content": "I am Ada. What is the weather in Paris?"},
    {
        "type": "function_call",
        "call_id": "c1",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    },
    {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
    {"role": "assistant", "content": "It is sunny in Paris."},
]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


@pytest.fixture
def scripted(bridge_server_factory: StartServer) -> BridgeServer:
    return bridge_server_factory(script=SCRIPT)


async def post(http: aiohttp.ClientSession, url: str, body: Any) -> tuple[int, dict[str, Any]]:
    async with http.post(
        url, data=json.dumps(body), headers={"Content-Type": "application/json"}
    ) as reply:
        payload = await reply.json()
        assert isinstance(payload, dict)
        return reply.status, payload


async def compact(http: aiohttp.ClientSession, server: BridgeServer) -> dict[str, Any]:
    status, result = await post(
        http, f"{server.base_url}/responses/compact", {"model": "sim-echo", "input": CONVERSATION}
    )
    assert status == 200, result
    validate_compaction(result)
    return result


async def test_compact_returns_user_messages_and_the_summary(
    http: aiohttp.ClientSession, scripted: BridgeServer
) -> None:
    result = await compact(http, scripted)
    *users, item = result["output"]
    assert [u["content"] for u in users] == [
        [{"type": "input_text", "text": "I am Ada. What is the weather in Paris?"}]
    ]
    assert item["type"] == "compaction"
    assert SUMMARY not in item["encrypted_content"]
    assert decode_summary(item["encrypted_content"]) == SUMMARY
    usage = result["usage"]
    assert usage["input_tokens"] > 50 and usage["output_tokens"] > 5
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


async def test_compaction_round_trip_over_http(
    http: aiohttp.ClientSession, scripted: BridgeServer
) -> None:
    result = await compact(http, scripted)
    status, response = await post(
        http, f"{scripted.base_url}/responses", {"model": "sim-echo", "input": result["output"]}
    )
    assert status == 200, response
    validate_response(response)
    assert SUMMARY in output_text(response)

    # Continuing after the compacted history works like any other history.
    more = [*result["output"], {"role": "user", "content": "And tomorrow?"}]
    status, response = await post(
        http, f"{scripted.base_url}/responses", {"model": "sim-echo", "input": more}
    )
    assert status == 200 and output_text(response) == "You said: And tomorrow?"


async def test_compaction_round_trip_over_websocket(
    http: aiohttp.ClientSession, scripted: BridgeServer
) -> None:
    result = await compact(http, scripted)
    url = scripted.root_url.replace("http://", "ws://", 1) + "/v1/responses"
    async with http.ws_connect(url) as ws:
        await ws.send_str(
            json.dumps({"type": "response.create", "model": "sim-echo", "input": result["output"]})
        )
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] != "response.completed":
            message = await ws.receive(timeout=20)
            events.append(json.loads(message.data))
            assert events[-1]["type"] != "error", events[-1]
        final = validate_stream(events)
        assert SUMMARY in output_text(final)

        # A bad compaction item is an error event; the connection goes on.
        bad = {"type": "compaction", "encrypted_content": "gAAAAB-not-ours"}
        await ws.send_str(
            json.dumps({"type": "response.create", "model": "sim-echo", "input": [bad]})
        )
        event = json.loads((await ws.receive(timeout=20)).data)
        validate_websocket_error(event)
        assert event["error"]["param"] == "input[0].encrypted_content"


async def test_compacting_a_compacted_history(
    http: aiohttp.ClientSession, scripted: BridgeServer
) -> None:
    first = await compact(http, scripted)
    status, second = await post(
        http,
        f"{scripted.base_url}/responses/compact",
        {"model": "sim-echo", "input": [*first["output"], {"role": "user", "content": "Thanks."}]},
    )
    assert status == 200, second
    validate_compaction(second)
    assert [i["type"] for i in second["output"]] == ["message", "message", "compaction"]


async def test_compact_errors(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    url = f"{bridge_server.base_url}/responses/compact"
    cases: list[tuple[Any, int, str | None]] = [
        ({"input": CONVERSATION}, 400, "model"),
        ({"model": "sim-echo"}, 400, "input"),
        (
            {"model": "sim-echo", "input": "x", "previous_response_id": "resp_1"},
            400,
            "previous_response_id",
        ),
        (
            {"model": "sim-echo", "input": [{"type": "compaction", "encrypted_content": "x"}]},
            400,
            "input[0].encrypted_content",
        ),
        ({"model": "no-such-model", "input": "x"}, 404, "model"),
        ([1, 2], 400, None),
    ]
    for body, status, param in cases:
        got, payload = await post(http, url, body)
        assert (got, payload["error"]["param"]) == (status, param), payload
    async with http.get(url) as reply:
        assert reply.status == 405


async def test_bad_compaction_item_over_http(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "input": [{"type": "compaction", "encrypted_content": "amcmp1.AAAA"}],
    }
    status, payload = await post(http, f"{bridge_server.base_url}/responses", body)
    assert status == 400 and "damaged" in payload["error"]["message"]


async def test_openai_sdk_compact_and_reuse(scripted: BridgeServer) -> None:
    client = AsyncOpenAI(base_url=scripted.base_url, api_key="unused", max_retries=0)
    compacted = await client.responses.compact(model="sim-echo", input=CONVERSATION)  # type: ignore[arg-type]
    assert compacted.object == "response.compaction"
    assert compacted.output[-1].type == "compaction"
    assert compacted.usage.total_tokens > 0
    # The SDK types every output item as an output message, so the user messages' `input_text`
    # parts (what OpenAI returns too) would warn when dumped; the values are what we sent.
    items = [item.to_dict(warnings=False) for item in compacted.output]
    response = await client.responses.create(model="sim-echo", input=items)  # type: ignore[arg-type]
    assert SUMMARY in response.output_text
    await client.close()


async def test_compaction_obeys_the_request_limits(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    url = f"{bridge_server.base_url}/responses/compact"
    items = [{"role": "user", "content": "hi"}] * 10_001
    status, payload = await post(http, url, {"model": "sim-echo", "input": items})
    assert (status, payload["error"]["code"], payload["error"]["param"]) == (
        400,
        "array_above_max_length",
        "input",
    )
