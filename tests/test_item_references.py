"""`item_reference` input items against the real language server, on every path that reads
input: HTTP (JSON and SSE), WebSocket turns, compaction and input-token counts.

The editor (the simulated model under script rules, plus recording) runs in this test process,
so the tests compare what reached the model when a client sends references with what reached
it when the client sends the items themselves: they must be the same.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import StartServer
from recording_model import RecordingModel, running_editor
from samples import WEATHER_TOOL, output_text
from spec_validation import parse_sse, validate_response, validate_stream
from test_websocket_editor import turn

from bridge.core.backend import TextPart
from headless_editor.script import Script

PATCH = "*** Begin Patch\n*** End Patch\n"
SUMMARY = "SUMMARY: a plan was made."
SCRIPT = Script.model_validate(
    {
        "rules": [
            {"match": "compacting a conversation", "reply": [{"type": "text", "text": SUMMARY}]},
            {
                "match": "Plan the work",
                "reply": [
                    {"type": "thinking", "text": "Weather first, then the patch."},
                    {"type": "text", "text": "Here is the plan."},
                    {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Paris"}},
                    {"type": "tool_call", "name": "apply_patch", "arguments": PATCH},
                ],
            },
        ]
    }
)
TOOLS = [WEATHER_TOOL, {"type": "custom", "name": "apply_patch", "description": "Edit files."}]
ASK = {"role": "user", "content": "Plan the work."}


@pytest.fixture
async def editor() -> AsyncIterator[tuple[str, RecordingModel]]:
    async with running_editor({}, SCRIPT) as pair:
        yield pair


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


async def post(
    http: aiohttp.ClientSession, url: str, body: dict[str, Any], path: str = "/responses"
) -> tuple[int, Any]:
    """Status and decoded body; an SSE body is validated and its final Response returned."""
    async with http.post(url + path, json=body) as reply:
        text = await reply.text()
        if reply.content_type == "text/event-stream":
            return reply.status, validate_stream(parse_sse(text))
        return reply.status, json.loads(text)


async def created(http: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> dict[str, Any]:
    status, response = await post(http, url, body)
    assert status == 200, response
    assert isinstance(response, dict)
    validate_response(response)
    assert response["status"] == "completed"
    return response


def reference(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "item_reference", "id": item["id"]}


def tool_outputs(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    call, custom = (item for item in output if item["type"].endswith("call"))
    return [
        {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny."},
        {"type": "custom_tool_call_output", "call_id": custom["call_id"], "output": "Done."},
    ]


async def first_turn(http: aiohttp.ClientSession, url: str) -> list[dict[str, Any]]:
    """The emitted items a later request refers to: reasoning, text, a function and a custom
    tool call."""
    response = await created(http, url, {"model": "sim-echo", "input": [ASK], "tools": TOOLS})
    output: list[dict[str, Any]] = response["output"]
    assert [item["type"] for item in output] == [
        "reasoning",
        "message",
        "function_call",
        "custom_tool_call",
    ]
    assert [item["id"].split("_AM-")[0] for item in output] == ["rs", "msg", "fc", "ctc"]
    return output


# --------------------------------------------------------------------------- HTTP


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_references_reach_the_model_as_the_items_themselves(
    editor: tuple[str, RecordingModel], http: aiohttp.ClientSession, stream: bool
) -> None:
    url, model = editor
    output = await first_turn(http, url)
    by_reference = [ASK, *map(reference, output), *tool_outputs(output)]
    in_full = [ASK, *output, *tool_outputs(output)]

    answer = await created(
        http, url, {"model": "sim-echo", "input": by_reference, "tools": TOOLS, "stream": stream}
    )
    await created(http, url, {"model": "sim-echo", "input": in_full, "tools": TOOLS})

    assert output_text(answer) == "The tool apply_patch returned 5 characters."
    with_references, with_items = model.requests[1], model.requests[2]
    assert with_references.messages == with_items.messages
    assert [message.role for message in with_references.messages] == ["user", "assistant", "user"]
    assert with_references.messages[1].content[0] == TextPart(value="Here is the plan.")


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(
    "item", [{"type": "item_reference", "id": "msg_AM-unknown00000"}, {"id": "rs_AM-nope"}]
)
async def test_an_unknown_reference_is_a_400_before_the_model_is_asked(
    editor: tuple[str, RecordingModel],
    http: aiohttp.ClientSession,
    stream: bool,
    item: dict[str, Any],
) -> None:
    url, model = editor
    status, body = await post(
        http, url, {"model": "sim-echo", "input": [ASK, item], "stream": stream}
    )
    assert status == 400
    error = body["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "item_not_found",
        "input[1].id",
    )
    assert item["id"] in error["message"] and "store" in error["message"]
    assert model.requests == []


async def test_a_reference_does_not_bring_back_http_state(
    editor: tuple[str, RecordingModel], http: aiohttp.ClientSession
) -> None:
    url, _ = editor
    output = await first_turn(http, url)
    status, body = await post(
        http,
        url,
        {"model": "sim-echo", "input": [reference(output[1])], "previous_response_id": "resp_1"},
    )
    assert status == 400
    assert body["error"]["param"] == "previous_response_id"


async def test_the_least_recently_used_items_go_when_the_cache_is_full(
    http: aiohttp.ClientSession,
) -> None:
    # About five answers' worth of bytes, for ten answers.
    async with running_editor({"limits": {"itemCacheBytes": 2_500}}, SCRIPT) as (url, model):
        answers = [
            (await created(http, url, {"model": "sim-echo", "input": f"Answer {n}."}))["output"][0]
            for n in range(10)
        ]
        status, body = await post(
            http, url, {"model": "sim-echo", "input": [ASK, reference(answers[0])]}
        )
        assert status == 400 and body["error"]["code"] == "item_not_found"
        await created(http, url, {"model": "sim-echo", "input": [reference(answers[-1]), ASK]})
    assert model.requests[-1].messages[0].content == [TextPart(value="You said: Answer 9.")]


async def test_size_zero_keeps_nothing(http: aiohttp.ClientSession) -> None:
    async with running_editor({"limits": {"itemCacheBytes": 0}}, SCRIPT) as (url, _):
        answer = (await created(http, url, {"model": "sim-echo", "input": "hi"}))["output"][0]
        status, body = await post(http, url, {"model": "sim-echo", "input": [reference(answer)]})
    assert status == 400 and body["error"]["code"] == "item_not_found"


async def test_the_serve_flag_sets_the_size(
    bridge_server_factory: StartServer, http: aiohttp.ClientSession
) -> None:
    server = bridge_server_factory("--item-cache-bytes", "0")
    url = server.base_url
    answer = (await created(http, url, {"model": "sim-echo", "input": "hi"}))["output"][0]
    status, body = await post(http, url, {"model": "sim-echo", "input": [reference(answer)]})
    assert status == 400 and body["error"]["code"] == "item_not_found"


# --------------------------------------------------------------------------- WebSocket


async def test_websocket_turns_share_the_same_items_with_http(
    editor: tuple[str, RecordingModel], http: aiohttp.ClientSession
) -> None:
    url, model = editor
    over_http = await first_turn(http, url)
    ws_url = url.replace("http://", "ws://", 1) + "/responses"
    async with http.ws_connect(ws_url) as ws:
        # Items emitted over HTTP, named in a WebSocket turn...
        events = await turn(
            ws,
            model="sim-echo",
            tools=TOOLS,
            input=[ASK, *map(reference, over_http), *tool_outputs(over_http)],
        )
        first = events[-1]["response"]
        assert first["status"] == "completed"
        assert model.requests[-1].messages == (
            await _messages_for(http, url, model, [ASK, *over_http, *tool_outputs(over_http)])
        )
        # ...a continuation whose new items are references to this connection's output...
        events = await turn(
            ws,
            model="sim-echo",
            previous_response_id=first["id"],
            input=[*map(reference, first["output"]), {"role": "user", "content": "Again."}],
        )
        assert events[-1]["type"] == "response.completed"
        # ...and an unknown one: an error event, and the connection stays usable.
        events = await turn(
            ws, model="sim-echo", input=[{"type": "item_reference", "id": "msg_AM-gone"}]
        )
        assert events[-1]["type"] == "error"
        assert events[-1]["status"] == 400
        assert events[-1]["error"]["code"] == "item_not_found"
        events = await turn(ws, model="sim-echo", input="Still there?")
        assert events[-1]["type"] == "response.completed"
        over_ws = events[-1]["response"]["output"][0]

    # Items emitted over WebSocket, named over HTTP after the connection closed.
    await created(http, url, {"model": "sim-echo", "input": [reference(over_ws), ASK]})
    assert model.requests[-1].messages[0].content == [TextPart(value="You said: Still there?")]


async def _messages_for(
    http: aiohttp.ClientSession, url: str, model: RecordingModel, items: list[dict[str, Any]]
) -> Any:
    """What the model reads for these items sent in full over HTTP."""
    await created(http, url, {"model": "sim-echo", "tools": TOOLS, "input": items})
    return model.requests[-1].messages


# --------------------------------------------------------------------------- other paths


async def test_compaction_reads_referenced_items(
    editor: tuple[str, RecordingModel], http: aiohttp.ClientSession
) -> None:
    url, model = editor
    output = await first_turn(http, url)
    status, compacted = await post(
        http,
        url,
        {"model": "sim-echo", "input": [ASK, *map(reference, output), *tool_outputs(output)]},
        path="/responses/compact",
    )
    assert status == 200, compacted
    assert compacted["output"][-1]["type"] == "compaction"
    transcript = model.requests[-1].messages[-1].content[0]
    assert isinstance(transcript, TextPart)
    assert "Here is the plan." in transcript.value
    assert "[called tool apply_patch" in transcript.value


async def test_input_tokens_count_referenced_items(
    editor: tuple[str, RecordingModel], http: aiohttp.ClientSession
) -> None:
    url, _ = editor
    output = await first_turn(http, url)
    counts = []
    for items in ([ASK, *map(reference, output)], [ASK, *output], [ASK]):
        status, body = await post(
            http, url, {"model": "sim-echo", "input": items}, path="/responses/input_tokens"
        )
        assert status == 200, body
        counts.append(body["input_tokens"])
    assert counts[0] == counts[1] > counts[2]
