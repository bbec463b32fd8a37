"""End to end with the real `anthropic` Python SDK as the client of a real `maestro-bridge serve`.

The SDK parses every body and event into its own types; on top, every answer, event and error
the bridge sends is checked against the Messages API's schema and stream order
(tests/anthropic_validation.py), on the wire (raw SSE) as well as after the SDK parsed it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from anthropic import Anthropic
from anthropic.types import Message, ToolParam
from anthropic_http import as_json, make_client, text_of
from anthropic_validation import (
    check_stream,
    parse_sse,
    validate_count_tokens,
    validate_message,
    validate_model_list,
)
from conftest import BridgeServer, StartServer
from plain_http import post

WEATHER_TOOL: ToolParam = {
    "name": "get_weather",
    "description": "The current weather in a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
HELLO: list[Any] = [{"role": "user", "content": "Hello from the SDK!"}]


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[Anthropic]:
    with make_client(bridge_server) as sdk:
        yield sdk


def checked(message: Message) -> Message:
    validate_message(as_json(message))
    assert message.id.startswith("msg_AM-")
    return message


def raw_stream(server: BridgeServer, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    """POST a streaming body, check every SSE frame on the wire; the assembled message."""
    response = post(
        f"{server.base_url}/messages?beta=true",
        {**body, "stream": True},
        headers={"anthropic-version": "2023-06-01", **headers},
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "[DONE]" not in response.text
    result = check_stream(parse_sse(response.text))
    assert result.message is not None, result.error
    return result.message


# --------------------------------------------------------------------------- text


def test_create(client: Anthropic) -> None:
    message = checked(client.messages.create(model="sim-echo", max_tokens=200, messages=HELLO))
    assert message.type == "message" and message.role == "assistant"
    assert message.model == "sim-echo"
    assert text_of(message) == "You said: Hello from the SDK!"
    assert message.stop_reason == "end_turn" and message.stop_sequence is None
    # The session's server may have seen this prompt already (another SDK's test): then its
    # simulated prompt cache serves all of it, and Anthropic counts it as read, not as input.
    usage = message.usage
    assert usage.input_tokens + (usage.cache_read_input_tokens or 0) > 0
    assert usage.output_tokens > 0


def test_system_and_history(client: Anthropic) -> None:
    message = client.messages.create(
        model="sim-echo",
        max_tokens=200,
        system=[
            {"type": "text", "text": "Answer briefly.", "cache_control": {"type": "ephemeral"}}
        ],
        messages=[
            {"role": "user", "content": "The first question."},
            {"role": "assistant", "content": "The first answer."},
            {"role": "user", "content": [{"type": "text", "text": "The second one."}]},
        ],
    )
    assert text_of(checked(message)) == "You said: The second one."


def test_raw_stream_events(client: Anthropic, bridge_server: BridgeServer) -> None:
    events = list(
        client.messages.create(model="sim-echo", max_tokens=200, messages=HELLO, stream=True)
    )
    names = [event.type for event in events]
    assert names[0] == "message_start" and names[-1] == "message_stop"
    result = check_stream([(event.type, as_json(event)) for event in events])
    assert result.message is not None
    deltas = [
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    ]
    assert len(deltas) > 1 and "".join(deltas) == "You said: Hello from the SDK!"
    wire = raw_stream(bridge_server, {"model": "sim-echo", "max_tokens": 200, "messages": HELLO})
    assert wire["content"] == [{"type": "text", "text": "You said: Hello from the SDK!"}]


def test_stream_helper(client: Anthropic) -> None:
    with client.messages.stream(model="sim-echo", max_tokens=200, messages=HELLO) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "You said: Hello from the SDK!"
    assert text_of(checked(final)) == text
    assert final.stop_reason == "end_turn" and final.usage.output_tokens > 0


# --------------------------------------------------------------------------- tools


def test_tool_loop(client: Anthropic) -> None:
    question: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = checked(
        client.messages.create(
            model="sim-echo", max_tokens=200, messages=question, tools=[WEATHER_TOOL]
        )
    )
    assert first.stop_reason == "tool_use"
    call = next(block for block in first.content if block.type == "tool_use")
    assert call.name == "get_weather" and call.input == {"city": "placeholder"}
    assert call.id
    turn: list[Any] = [
        *question,
        {"role": "assistant", "content": [block.model_dump() for block in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "Sunny."}],
        },
    ]
    with client.messages.stream(
        model="sim-echo", max_tokens=200, messages=turn, tools=[WEATHER_TOOL]
    ) as stream:
        second = stream.get_final_message()
    assert text_of(checked(second)) == "The tool get_weather returned 6 characters."
    assert second.stop_reason == "end_turn"


def test_scripted_tool_call_streams_its_input_whole(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "weather",
                "reply": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Lyon"}},
                ],
            }
        ]
    }
    server = bridge_server_factory(script=script)
    body = {"model": "sim-echo", "max_tokens": 200, "tools": [WEATHER_TOOL]}
    message = raw_stream(server, {**body, "messages": [{"role": "user", "content": "weather?"}]})
    assert message["stop_reason"] == "tool_use"
    assert message["content"][0] == {"type": "text", "text": "Let me look."}
    tool = message["content"][1]
    assert tool["type"] == "tool_use" and tool["input"] == {"city": "Lyon"}
    assert tool["id"].startswith("toolu_") or tool["id"].startswith("call")


# --------------------------------------------------------------------------- thinking, limits


def test_thinking_blocks(client: Anthropic, bridge_server: BridgeServer) -> None:
    with client.messages.stream(
        model="sim-reasoning",
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=HELLO,
    ) as stream:
        final = stream.get_final_message()
    kinds = [block.type for block in checked(final).content]
    assert kinds == ["thinking", "text"]
    thinking = final.content[0]
    assert thinking.type == "thinking" and thinking.thinking and thinking.signature
    # Sent back with its signature on the next turn, as Claude Code does.
    history: list[Any] = [
        *HELLO,
        {"role": "assistant", "content": [block.model_dump() for block in final.content]},
        {"role": "user", "content": "And again."},
    ]
    again = client.messages.create(
        model="sim-reasoning",
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=history,
    )
    assert text_of(checked(again)) == "You said: And again."
    plain = client.messages.create(model="sim-reasoning", max_tokens=2000, messages=HELLO)
    assert [block.type for block in checked(plain).content] == ["text"]
    wire = raw_stream(
        bridge_server,
        {
            "model": "sim-reasoning",
            "max_tokens": 2000,
            "messages": HELLO,
            "thinking": {"type": "adaptive"},
        },
    )
    assert [block["type"] for block in wire["content"]] == ["thinking", "text"]


def test_stop_sequences(client: Anthropic, bridge_server: BridgeServer) -> None:
    body: dict[str, Any] = {"model": "sim-echo", "max_tokens": 200, "stop_sequences": ["SDK"]}
    message = checked(client.messages.create(**body, messages=HELLO))
    assert text_of(message) == "You said: Hello from the "
    assert message.stop_reason == "stop_sequence" and message.stop_sequence == "SDK"
    wire = raw_stream(bridge_server, {**body, "messages": HELLO})
    assert wire["stop_reason"] == "stop_sequence" and wire["stop_sequence"] == "SDK"
    assert wire["content"] == [{"type": "text", "text": "You said: Hello from the "}]


def test_max_tokens_cut(client: Anthropic, bridge_server: BridgeServer) -> None:
    long_text: list[Any] = [
        {"role": "user", "content": "one two three four five six seven eight nine ten " * 5}
    ]
    message = checked(client.messages.create(model="sim-echo", max_tokens=5, messages=long_text))
    assert message.stop_reason == "max_tokens"
    assert 0 < message.usage.output_tokens <= 5
    wire = raw_stream(bridge_server, {"model": "sim-echo", "max_tokens": 5, "messages": long_text})
    assert wire["stop_reason"] == "max_tokens"


def test_pings_while_the_model_is_silent(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "slow",
                "reply": [{"type": "pause", "seconds": 1.2}, {"type": "text", "text": "Done."}],
            }
        ]
    }
    server = bridge_server_factory("--keepalive-seconds", "0.3", script=script)
    body: dict[str, Any] = {
        "model": "sim-echo",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "slow"}],
    }
    response = post(f"{server.base_url}/messages", {**body, "stream": True})
    events = parse_sse(response.text)
    assert [name for name, _ in events].count("ping") >= 2
    assert check_stream(events).message is not None
    with make_client(server) as client, client.messages.stream(**body) as stream:
        assert stream.get_final_message().content[0].type == "text"


# --------------------------------------------------------------------------- other endpoints


def test_count_tokens(client: Anthropic) -> None:
    counted = client.messages.count_tokens(model="sim-echo", messages=HELLO)
    validate_count_tokens(as_json(counted))
    longer = client.messages.count_tokens(
        model="sim-echo", messages=HELLO, system="Be brief and kind.", tools=[WEATHER_TOOL]
    )
    assert 0 < counted.input_tokens < longer.input_tokens


def anthropic_keys(listing: dict[str, Any]) -> dict[str, Any]:
    """The list without the OpenAI keys each entry carries too (one list serves both)."""
    openai_keys = {"object", "created", "owned_by", "name", "family", "version", "alias_for"}
    data = [{k: v for k, v in entry.items() if k not in openai_keys} for entry in listing["data"]]
    return {**{k: v for k, v in listing.items() if k != "object"}, "data": data}


def test_models_list(client: Anthropic, bridge_server: BridgeServer) -> None:
    page = client.models.list()
    with urllib.request.urlopen(f"{bridge_server.base_url}/models", timeout=30) as response:
        validate_model_list(anthropic_keys(json.loads(response.read())))
    assert "sim-echo" in [model.id for model in page.data]
    assert client.models.retrieve("sim-echo").id == "sim-echo"


def test_structured_output(client: Anthropic, bridge_server: BridgeServer) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city", "days"],
        "additionalProperties": False,
    }
    message = client.messages.create(
        model="sim-echo",
        max_tokens=200,
        messages=HELLO,
        extra_body={"output_config": {"format": {"type": "json_schema", "schema": schema}}},
    )
    answer = json.loads(text_of(checked(message)))
    assert set(answer) == {"city", "days"} and isinstance(answer["days"], int)
    bad = {"type": "object", "properties": {"x": {"type": "no-such-type"}}}
    with pytest.raises(anthropic.BadRequestError):
        client.messages.create(
            model="sim-echo",
            max_tokens=200,
            messages=HELLO,
            extra_body={"output_config": {"format": {"type": "json_schema", "schema": bad}}},
        )


def test_omitted_thinking_display(bridge_server: BridgeServer) -> None:
    thinking = {"type": "adaptive", "display": "omitted"}
    body = {"model": "sim-reasoning", "max_tokens": 2000, "messages": HELLO, "thinking": thinking}
    wire = raw_stream(bridge_server, body)
    assert wire["content"][0]["type"] == "thinking"
    assert wire["content"][0]["thinking"] == "" and wire["content"][0]["signature"]
    assert wire["content"][1]["type"] == "text"
