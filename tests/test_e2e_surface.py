"""End to end over HTTP for the wider Responses surface: reasoning, tools, images, history,
limits, structured output, keepalive and the smaller endpoints.

A real `maestro-bridge serve` (headless editor -> lsp -> aiohttp) answers; every Response and
event is validated against the Open Responses spec; no request may get a 5xx.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import jsonschema
import pytest
from conftest import BridgeServer, StartServer
from samples import WEATHER_TOOL, output_text
from test_e2e_http import (
    TIMEOUT,
    assert_error,
    create,
    items_of,
    ok_response,
    ok_stream,
    request,
)

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


# --------------------------------------------------------------------------- reasoning


async def test_reasoning_summary_events_come_before_the_message(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-reasoning",
        "input": "Why?",
        "reasoning": {"effort": "high", "summary": "detailed"},
        "stream": True,
    }
    events, final = ok_stream(await create(http, bridge_server, body))
    types = [e["type"] for e in events]
    for kind in (
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
    ):
        assert kind in types, types
    assert types.index("response.reasoning_summary_part.done") < types.index(
        "response.content_part.added"
    )
    reasoning, message = final["output"]
    assert reasoning["type"] == "reasoning" and message["type"] == "message"
    summary = reasoning["summary"][0]["text"]
    assert summary.startswith("Considering the request")
    deltas = "".join(
        e["delta"] for e in events if e["type"] == "response.reasoning_summary_text.delta"
    )
    assert deltas == summary
    assert final["reasoning"] == {"effort": "high", "summary": "detailed"}
    details = final["usage"]["output_tokens_details"]
    assert 0 < details["reasoning_tokens"] < final["usage"]["output_tokens"]


async def test_reasoning_without_summary_sends_no_summary_events(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-reasoning",
        "input": "Why?",
        "stream": True,
        "reasoning": {"effort": "low"},
    }
    events, final = ok_stream(await create(http, bridge_server, body))
    assert not any("reasoning_summary" in e["type"] for e in events)
    reasoning = final["output"][0]
    assert reasoning["type"] == "reasoning" and reasoning["summary"] == []
    assert final["usage"]["output_tokens_details"]["reasoning_tokens"] > 0


async def test_reasoning_effort_none_gives_no_reasoning_item(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {"model": "sim-reasoning", "input": "Quick.", "reasoning": {"effort": "none"}}
    response = ok_response(await create(http, bridge_server, body))
    assert [item["type"] for item in response["output"]] == ["message"]
    assert response["usage"]["output_tokens_details"]["reasoning_tokens"] == 0
    assert response["reasoning"]["effort"] == "none"


async def test_reasoning_input_items_from_codex_are_accepted(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    """Codex sends earlier reasoning back with `encrypted_content` and `content: null`."""
    body = {
        "model": "sim-reasoning",
        "include": ["reasoning.encrypted_content"],
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "a"}]},
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "Thought."}],
                "content": None,
                "encrypted_content": "gAAAAABopaque==",
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "b"}],
            },
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "c"}]},
        ],
        "reasoning": {"effort": "medium", "summary": "auto"},
    }
    response = ok_response(await create(http, bridge_server, body))
    assert output_text(response) == "You said: c"
    assert response["reasoning"] == {"effort": "medium", "summary": "auto"}


# --------------------------------------------------------------------------- tools


async def test_allowed_tools_limits_what_the_model_may_call(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    other = {**WEATHER_TOOL, "name": "get_time", "description": "The time in a city."}
    body = {
        "model": "sim-echo",
        "input": "Weather?",
        "tools": [WEATHER_TOOL, other],
        "tool_choice": {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "get_time"}],
        },
        "stream": True,
    }
    _, final = ok_stream(await create(http, bridge_server, body))
    (call,) = items_of(final, "function_call")
    assert call["name"] == "get_time"  # the simulated model calls the first tool it is offered
    assert final["tool_choice"]["type"] == "allowed_tools"
    assert [t["name"] for t in final["tools"]] == ["get_weather", "get_time"]


async def test_namespace_tool_call_comes_back_namespaced(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "input": "Spawn one.",
        "tools": [
            {
                "type": "namespace",
                "name": "agents",
                "description": "Sub-agents.",
                "tools": [
                    {
                        "type": "function",
                        "name": "spawn",
                        "parameters": {
                            "type": "object",
                            "properties": {"task": {"type": "string"}},
                            "required": ["task"],
                        },
                    }
                ],
            }
        ],
        "stream": True,
    }
    _, final = ok_stream(await create(http, bridge_server, body))
    (call,) = items_of(final, "function_call")
    assert (call["namespace"], call["name"]) == ("agents", "spawn")
    assert json.loads(call["arguments"]) == {"task": "placeholder"}


async def test_custom_tool_input_streams_as_custom_events(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    server = bridge_server_factory(
        script={
            "rules": [
                {
                    "match": "patch it",
                    "reply": [{"type": "tool_call", "name": "apply_patch", "arguments": patch}],
                }
            ]
        }
    )
    body = {
        "model": "sim-echo",
        "input": "patch it",
        "tools": [{"type": "custom", "name": "apply_patch", "description": "Patch files."}],
        "stream": True,
    }
    events, final = ok_stream(await create(http, server, body))
    (done,) = [e for e in events if e["type"] == "response.custom_tool_call_input.done"]
    assert done["input"] == patch
    deltas = [e for e in events if e["type"] == "response.custom_tool_call_input.delta"]
    assert "".join(e["delta"] for e in deltas) == patch
    (call,) = items_of(final, "custom_tool_call")
    assert call["input"] == patch and call["name"] == "apply_patch"


# --------------------------------------------------------------------------- images, files


def _user(*content: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(content)}


@pytest.mark.parametrize(
    "part",
    [
        {
            "type": "input_image",
            "image_url": "data:image/jpeg;base64," + base64.b64encode(PNG).decode(),
        },
        {"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "high"},
        {"type": "input_image", "image_url": "data:image/png;base64,@@@"},
        {"type": "input_image", "file_id": "file-1"},
        {"type": "input_file", "file_id": "file-2"},
        {"type": "input_file", "filename": "a.txt", "file_data": "data:text/plain;base64,aGk="},
        {"type": "input_file", "file_url": "https://example.com/a.pdf"},
    ],
    ids=[
        "png-declared-jpeg",
        "url",
        "bad-base64",
        "image-file-id",
        "file-id",
        "text-file",
        "file-url",
    ],
)
async def test_images_and_files_never_fail_a_request(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, part: dict[str, Any]
) -> None:
    body = {
        "model": "sim-echo",
        "input": [_user(part, {"type": "input_text", "text": "What is it?"})],
    }
    response = ok_response(await create(http, bridge_server, body))
    assert output_text(response).startswith("You said: ")


async def test_a_note_tells_the_model_what_was_left_out(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    part = {"type": "input_image", "image_url": "https://example.com/cat.png"}
    response = ok_response(
        await create(http, bridge_server, {"model": "sim-echo", "input": [_user(part)]})
    )
    # The echo model repeats the last user text: here, the note that replaced the image.
    assert "image not included: https://example.com/cat.png" in output_text(response)


# --------------------------------------------------------------------------- tool history


async def test_orphan_tool_output_is_a_400(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "input": [
            {"role": "user", "content": "run it"},
            {"type": "function_call_output", "call_id": "call_gone", "output": "exit 0"},
        ],
    }
    error = assert_error(await create(http, bridge_server, body), 400, param="input[1].call_id")
    assert "call_gone" in error["message"]


async def test_late_tool_output_becomes_labelled_text(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"}
    body = {
        "model": "sim-echo",
        "input": [
            {"role": "user", "content": "run it"},
            call,
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {"role": "assistant", "content": "It is sunny."},
            {"type": "function_call_output", "call_id": "c1", "output": "exit 0"},
        ],
    }
    response = ok_response(await create(http, bridge_server, body))
    # The echo model repeats the last text: the late output arrived as (labelled) text, since
    # a tool result would have been answered with "The tool ... returned ...".
    assert output_text(response) == "You said: exit 0"


async def test_unanswered_call_and_duplicate_ids_are_accepted(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"}
    body = {
        "model": "sim-echo",
        "input": [
            {"role": "user", "content": "one"},
            call,
            call,  # echoed twice
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {"role": "user", "content": "two"},
            {**call, "arguments": '{"city": "Rome"}'},  # the same id, another call, no output
            {"role": "user", "content": "three"},
        ],
        "stream": True,
    }
    _, final = ok_stream(await create(http, bridge_server, body))
    assert output_text(final) == "You said: three"


# --------------------------------------------------------------------------- limits


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_input_over_the_context_window_is_a_400(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, stream: bool
) -> None:
    """sim-echo reads 128000 tokens; this input is 150000 of its tokens."""
    body = {"model": "sim-echo", "input": " a" * 150_000, "stream": stream}
    started = time.monotonic()
    error = assert_error(
        await create(http, bridge_server, body), 400, code="context_length_exceeded", param="input"
    )
    assert "150000" in error["message"] and "128000" in error["message"]
    assert time.monotonic() - started < 30


async def test_max_output_tokens_goes_to_the_model_and_cuts(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-reasoning",
        "input": "word " * 40,
        "max_output_tokens": 20,
        "reasoning": {"effort": "low"},
    }
    response = ok_response(await create(http, bridge_server, body))
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    usage = response["usage"]
    assert usage["output_tokens"] <= 20
    # Thinking counts toward the limit, as in OpenAI's API: here it took all of it.
    assert [item["type"] for item in response["output"]] == ["reasoning"]
    assert usage["output_tokens_details"]["reasoning_tokens"] == usage["output_tokens"]

    body = {"model": "sim-echo", "input": "word " * 40, "max_output_tokens": 8}
    response = ok_response(await create(http, bridge_server, body))
    assert response["status"] == "incomplete"
    (message,) = response["output"]
    assert message["status"] == "incomplete"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_bridge_cuts_a_model_that_ignores_max_output_tokens(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer, stream: bool
) -> None:
    """The rule plays a provider that ignores the option: the bridge counts with the editor's
    counter (over the real protocol) and cuts."""
    long_text = " ".join(f"word{n}" for n in range(200))
    server = bridge_server_factory(
        script={
            "rules": [
                {
                    "match": "talk",
                    "reply": [{"type": "text", "text": long_text}],
                    "ignore_max_output_tokens": True,
                }
            ]
        }
    )
    body = {"model": "sim-echo", "input": "talk", "max_output_tokens": 30, "stream": stream}
    reply = await create(http, server, body)
    if stream:
        events, response = ok_stream(reply)
        assert events[-1]["type"] == "response.incomplete"
    else:
        response = ok_response(reply)
    text = output_text(response)
    assert text and long_text.startswith(text) and len(text) < len(long_text) // 3
    assert response["status"] == "incomplete"
    assert response["incomplete_details"] == {"reason": "max_output_tokens"}
    assert response["output"][0]["status"] == "incomplete"
    assert 25 <= response["usage"]["output_tokens"] <= 30


# --------------------------------------------------------------------------- structured output

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city", "days"],
    "additionalProperties": False,
}


async def test_json_schema_answer_is_valid_and_text_is_echoed(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    text = {"format": {"type": "json_schema", "name": "trip", "schema": SCHEMA, "strict": True}}
    body = {"model": "sim-echo", "input": "Plan a trip.", "text": text, "stream": True}
    _, final = ok_stream(await create(http, bridge_server, body))
    jsonschema.validate(json.loads(output_text(final)), SCHEMA)
    assert final["text"]["format"]["name"] == "trip"
    assert final["text"]["format"]["schema"] == SCHEMA


async def test_invalid_structured_answer_is_returned_and_logged(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory(
        script={"rules": [{"match": "trip", "reply": [{"type": "text", "text": '{"city": 7}'}]}]}
    )
    text = {"format": {"type": "json_schema", "name": "trip", "schema": SCHEMA}}
    body = {"model": "sim-echo", "input": "Plan a trip.", "text": text}
    response = ok_response(await create(http, server, body))
    assert response["status"] == "completed"
    assert output_text(response) == '{"city": 7}'
    deadline = time.monotonic() + 10
    while "Structured output 'trip'" not in server.stderr_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.stderr_text()
    assert "Structured output 'trip'" in log and "does not match the schema" in log
    assert '{"city": 7}' not in log  # the answer itself is logged only at debug


async def test_json_schema_without_schema_is_a_400(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    body = {
        "model": "sim-echo",
        "input": "x",
        "text": {"format": {"type": "json_schema", "name": "n"}},
    }
    assert_error(await create(http, bridge_server, body), 400, param="text.format.schema")


# --------------------------------------------------------------------------- keepalive


SILENT_RULES = {
    "rules": [
        {
            "match": "slow",
            "reply": [
                {"type": "pause", "seconds": 1.2},
                {"type": "text", "text": "Finally"},
                {"type": "pause", "seconds": 1.2},
                {"type": "text", "text": " here."},
            ],
        }
    ]
}


async def test_keepalive_events_while_the_model_is_silent(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--keepalive-seconds", "0.2", script=SILENT_RULES)
    reply = await create(http, server, {"model": "sim-echo", "input": "slow", "stream": True})
    events, final = ok_stream(reply)  # every other event valid, keepalives in the sequence
    assert output_text(final) == "Finally here."
    types = [event["type"] for event in events]
    first_delta = types.index("response.output_text.delta")
    last_delta = len(types) - 1 - types[::-1].index("response.output_text.delta")
    # Before the first part: the held lifecycle events go out with the first keepalive.
    assert types[:3] == ["response.created", "response.in_progress", "keepalive"]
    assert types[:first_delta].count("keepalive") >= 2, types
    assert "keepalive" in types[first_delta:last_delta], types  # between parts too
    assert all(set(e) == {"type", "sequence_number"} for e in events if e["type"] == "keepalive")
    assert "event: keepalive\ndata: {" in reply.text
    # No SSE comment lines: Codex would not count them.
    assert not [line for line in reply.text.split("\n") if line.startswith(":")]
    assert reply.text.endswith("\n\ndata: [DONE]\n\n")

    # Without silence there are no keepalives, and JSON answers never get any.
    quick = await create(http, server, {"model": "sim-echo", "input": "quick", "stream": True})
    quick_events, _ = ok_stream(quick)
    assert "keepalive" not in [event["type"] for event in quick_events]
    slow_json = await create(http, server, {"model": "sim-echo", "input": "slow"})
    assert output_text(ok_response(slow_json)) == "Finally here."


async def test_keepalive_can_be_turned_off(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory(
        "--keepalive-seconds",
        "0",
        script={
            "rules": [
                {
                    "match": "slow",
                    "reply": [{"type": "pause", "seconds": 0.6}, {"type": "text", "text": "ok"}],
                }
            ]
        },
    )
    reply = await create(http, server, {"model": "sim-echo", "input": "slow", "stream": True})
    events, _ = ok_stream(reply)
    assert "keepalive" not in [event["type"] for event in events]
    assert "keepalive" not in reply.text


# --------------------------------------------------------------------------- endpoints


async def test_input_tokens_endpoint(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    url = f"{bridge_server.base_url}/responses/input_tokens"
    small = await request(http, "POST", url, body={"model": "sim-echo", "input": "one two"})
    assert small.status == 200
    body = small.json()
    assert set(body) == {"object", "input_tokens"}
    assert body["object"] == "response.input_tokens"
    assert body["input_tokens"] == 2  # the simulated model's own counter: two words

    with_tools = await request(
        http,
        "POST",
        url,
        body={"model": "sim-echo", "input": "one two", "tools": [WEATHER_TOOL]},
    )
    assert with_tools.json()["input_tokens"] > 2

    no_model = await request(http, "POST", url, body={"input": "one two"})
    assert no_model.json() == body  # the editor's first model counts

    empty = await request(http, "POST", url, body={"model": "sim-echo"})
    assert empty.json() == {"object": "response.input_tokens", "input_tokens": 0}
    unreadable = await request(
        http, "POST", url, body={"model": "sim-echo", "input": [{"type": "reasoning"}]}
    )
    assert unreadable.json() == {"object": "response.input_tokens", "input_tokens": 0}

    assert_error(
        await request(http, "POST", url, body={"model": "nope", "input": "x"}),
        404,
        code="model_not_found",
    )
    assert_error(await request(http, "POST", url, data="[1"), 400, code="invalid_json")
    assert_error(
        await request(http, "POST", url, body={"model": "sim-echo", "previous_response_id": "r"}),
        400,
        code="unsupported_parameter",
    )


async def test_one_model(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    reply = await request(http, "GET", f"{bridge_server.base_url}/models/sim-reasoning")
    assert reply.status == 200
    model = reply.json()
    assert (model["id"], model["object"], model["max_input_tokens"]) == (
        "sim-reasoning",
        "model",
        128000,
    )
    listed = await request(http, "GET", f"{bridge_server.base_url}/models")
    assert model in listed.json()["data"]
    error = assert_error(
        await request(http, "GET", f"{bridge_server.base_url}/models/gpt-x"),
        404,
        code="model_not_found",
    )
    assert "sim-echo" in error["message"]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/responses/resp_AM-1-abc"),
        ("DELETE", "/v1/responses/resp_AM-1-abc"),
        ("GET", "/v1/responses/resp_AM-1-abc/input_items"),
        ("GET", "/responses/resp_1"),
    ],
)
async def test_stored_responses_are_not_kept(
    http: aiohttp.ClientSession, bridge_server: BridgeServer, method: str, path: str
) -> None:
    reply = await request(http, method, f"{bridge_server.root_url}{path}")
    error = assert_error(reply, 404, code="response_not_found", param="response_id")
    assert "stateless" in error["message"] and "resp_" in error["message"]


async def test_cancel_is_explained(
    http: aiohttp.ClientSession, bridge_server: BridgeServer
) -> None:
    reply = await request(http, "POST", f"{bridge_server.base_url}/responses/resp_1/cancel")
    error = assert_error(reply, 400, code="unsupported_operation")
    assert "close the connection" in error["message"]


async def test_one_model_and_input_tokens_know_the_aliases(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer
) -> None:
    server = bridge_server_factory("--model-alias", "gpt-5.5=sim-echo")
    reply = await request(http, "GET", f"{server.base_url}/models/gpt-5.5")
    assert reply.status == 200
    entry = reply.json()
    assert (entry["id"], entry["alias_for"]) == ("gpt-5.5", "sim-echo")
    counted = await request(
        http,
        "POST",
        f"{server.base_url}/responses/input_tokens",
        body={"model": "gpt-5.5", "input": "one two"},
    )
    assert counted.json() == {"object": "response.input_tokens", "input_tokens": 2}
