"""End to end with the real `openai` Python SDK's Chat Completions client against a real
`maestro-bridge serve`: create, streams, the stream and parse helpers, a tool loop, thinking,
stop, length, keepalives and errors.

The SDK parses every body and chunk into its own types; on top, every answer, chunk and error
the bridge sends is checked against the Chat Completions schema kept in the repository
(tests/chat_validation.py), on the wire (raw SSE) as well as after the SDK parsed it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from chat_http import as_json, make_client, post
from chat_validation import (
    DONE,
    SseBody,
    check_failed_stream,
    check_stream,
    comparable,
    parse_sse,
    validate_completion,
    validate_error,
)
from conftest import BridgeServer, StartServer
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionToolParam
from pydantic import BaseModel

WEATHER_TOOL: ChatCompletionToolParam = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
HELLO: list[Any] = [{"role": "user", "content": "Hello from the SDK!"}]
ECHO = "You said: Hello from the SDK!"


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[OpenAI]:
    with make_client(bridge_server) as sdk:
        yield sdk


def checked(completion: ChatCompletion) -> ChatCompletion:
    """The SDK's answer, validated as the JSON it came from."""
    validate_completion(as_json(completion))
    assert completion.id.startswith("chatcmpl-AM-")
    assert completion.object == "chat.completion"
    return completion


def raw_stream(
    server: BridgeServer, body: dict[str, Any], include_usage: bool = False
) -> tuple[dict[str, Any], SseBody]:
    """POST a streaming body, check every frame on the wire; the folded completion."""
    if include_usage:
        body = {**body, "stream_options": {"include_usage": True}}
    response = post(f"{server.base_url}/chat/completions", {**body, "stream": True})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    sse = parse_sse(response.text)
    return check_stream(sse.chunks, include_usage=include_usage), sse


def same_answer(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two completions say the same, ids and times aside (and `annotations`, which only the
    non-streaming answer carries: a stream has no delta for it)."""
    left, right = comparable(one), comparable(other)
    for completion in (left, right):
        for choice in completion["choices"]:
            choice["message"].pop("annotations", None)
    return bool(left == right)


def reasoning_of(message: Any) -> str | None:
    """`reasoning_content`: not in the SDK's types, kept as an extra field."""
    extra = message.model_extra or {}
    value = extra.get("reasoning_content")
    assert value is None or isinstance(value, str)
    return value


# --------------------------------------------------------------------------- text


def test_create(client: OpenAI) -> None:
    completion = checked(client.chat.completions.create(model="sim-echo", messages=HELLO))
    choice = completion.choices[0]
    assert completion.model == "sim-echo"
    assert choice.message.role == "assistant" and choice.message.content == ECHO
    assert choice.finish_reason == "stop" and choice.message.tool_calls is None
    assert reasoning_of(choice.message) is None
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 0


def test_system_developer_and_history(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="sim-echo",
        messages=[
            {"role": "system", "content": "Answer briefly."},
            {"role": "developer", "content": "Be kind."},
            {"role": "user", "content": "The first question."},
            {"role": "assistant", "content": "The first answer."},
            {"role": "user", "content": [{"type": "text", "text": "The second one."}]},
        ],
    )
    assert checked(completion).choices[0].message.content == "You said: The second one."


def test_stream_with_include_usage(client: OpenAI, bridge_server: BridgeServer) -> None:
    chunks = list(
        client.chat.completions.create(
            model="sim-echo",
            messages=HELLO,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    folded = check_stream([as_json(c) for c in chunks], include_usage=True, wire=False)
    assert chunks[0].choices[0].delta.role == "assistant"
    texts = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(texts) > 1 and "".join(texts) == ECHO
    assert len({c.id for c in chunks}) == 1
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens > 0
    assert all(c.usage is None for c in chunks[:-1])
    wire, sse = raw_stream(
        bridge_server, {"model": "sim-echo", "messages": HELLO}, include_usage=True
    )
    assert sse.chunks[-1] == DONE and sse.keepalives == 0
    assert same_answer(wire, folded)
    plain = checked(client.chat.completions.create(model="sim-echo", messages=HELLO))
    assert same_answer(as_json(plain), wire)  # the non-streaming answer: the same


def test_stream_without_usage(bridge_server: BridgeServer) -> None:
    wire, sse = raw_stream(bridge_server, {"model": "sim-echo", "messages": HELLO})
    assert wire["choices"][0]["message"]["content"] == ECHO
    assert all("usage" not in c for c in sse.chunks if c != DONE)


def test_stream_helper(client: OpenAI) -> None:
    with client.chat.completions.stream(model="sim-echo", messages=HELLO) as stream:
        deltas = [event.delta for event in stream if event.type == "content.delta"]
        final = stream.get_final_completion()
    assert "".join(deltas) == ECHO and len(deltas) > 1
    assert final.choices[0].message.content == ECHO
    assert final.choices[0].finish_reason == "stop"


def test_the_path_without_v1(bridge_server: BridgeServer) -> None:
    response = post(
        f"{bridge_server.root_url}/chat/completions", {"model": "sim-echo", "messages": HELLO}
    )
    assert response.status_code == 200, response.text
    validate_completion(response.json())
    assert response.json()["choices"][0]["message"]["content"] == ECHO


# --------------------------------------------------------------------------- structured output


class Weather(BaseModel):
    city: str
    degrees: int


def test_parse_with_a_pydantic_format(client: OpenAI) -> None:
    completion = client.chat.completions.parse(
        model="sim-echo", messages=HELLO, response_format=Weather
    )
    sent = as_json(completion)
    parsed_json = sent["choices"][0]["message"].pop("parsed")  # the SDK's, not the bridge's
    validate_completion(sent)
    assert parsed_json == {"city": "placeholder", "degrees": 0}
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Weather)
    assert parsed == Weather(city="placeholder", degrees=0)


def test_stream_helper_with_a_pydantic_format(client: OpenAI) -> None:
    with client.chat.completions.stream(
        model="sim-echo", messages=HELLO, response_format=Weather
    ) as stream:
        final = stream.get_final_completion()
    assert isinstance(final.choices[0].message.parsed, Weather)


def test_json_object_format(client: OpenAI) -> None:
    completion = client.chat.completions.create(
        model="sim-echo", messages=HELLO, response_format={"type": "json_object"}
    )
    content = checked(completion).choices[0].message.content
    assert content is not None and json.loads(content) == {"answer": ECHO}


# --------------------------------------------------------------------------- tools


def test_tool_loop(client: OpenAI, bridge_server: BridgeServer) -> None:
    question: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = checked(
        client.chat.completions.create(model="sim-echo", messages=question, tools=[WEATHER_TOOL])
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Calling get_weather."
    calls = choice.message.tool_calls
    assert calls is not None and len(calls) == 1
    call = calls[0]
    assert call.type == "function" and call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "placeholder"} and call.id
    turn: list[Any] = [
        *question,
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "Sunny."},
    ]
    with client.chat.completions.stream(
        model="sim-echo", messages=turn, tools=[WEATHER_TOOL]
    ) as stream:
        second = stream.get_final_completion()
    assert second.choices[0].message.content == "The tool get_weather returned 6 characters."
    assert second.choices[0].finish_reason == "stop"
    wire, _ = raw_stream(bridge_server, {"model": "sim-echo", "messages": turn})
    assert wire["choices"][0]["message"]["content"] == second.choices[0].message.content


TWO_CALLS = {
    "rules": [
        {
            "match": "weather",
            "reply": [
                {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Lyon"}},
                {"type": "tool_call", "name": "get_weather", "arguments": {"city": "Nice"}},
            ],
        }
    ]
}


def test_parallel_tool_calls_stream_with_their_indexes(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory(script=TWO_CALLS)
    body: dict[str, Any] = {
        "model": "sim-echo",
        "messages": [{"role": "user", "content": "weather?"}],
    }
    wire, sse = raw_stream(server, {**body, "tools": [WEATHER_TOOL]})
    message = wire["choices"][0]["message"]
    assert message["content"] is None and wire["choices"][0]["finish_reason"] == "tool_calls"
    assert [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]] == [
        {"city": "Lyon"},
        {"city": "Nice"},
    ]
    indexes = [
        call["index"]
        for chunk in sse.chunks
        if chunk != DONE and chunk["choices"]
        for call in chunk["choices"][0]["delta"].get("tool_calls", [])
    ]
    assert indexes == [0, 1]
    single, _ = raw_stream(server, {**body, "tools": [WEATHER_TOOL], "parallel_tool_calls": False})
    calls = single["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"city": "Lyon"}]
    with make_client(server) as client:
        completion = checked(
            client.chat.completions.create(**body, tools=[WEATHER_TOOL], parallel_tool_calls=False)
        )
    assert len(completion.choices[0].message.tool_calls or []) == 1


# --------------------------------------------------------------------------- thinking, limits


def test_thinking_as_reasoning_content(client: OpenAI, bridge_server: BridgeServer) -> None:
    completion = checked(client.chat.completions.create(model="sim-reasoning", messages=HELLO))
    message = completion.choices[0].message
    reasoning = reasoning_of(message)
    assert reasoning is not None and reasoning.startswith("Considering the request")
    assert message.content == ECHO
    usage = completion.usage
    assert usage is not None and usage.completion_tokens_details is not None
    assert 0 < (usage.completion_tokens_details.reasoning_tokens or 0) < usage.completion_tokens
    wire, _ = raw_stream(
        bridge_server, {"model": "sim-reasoning", "messages": HELLO}, include_usage=True
    )
    assert wire["choices"][0]["message"]["reasoning_content"] == reasoning
    with client.chat.completions.stream(model="sim-reasoning", messages=HELLO) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == ECHO
    none = client.chat.completions.create(
        model="sim-reasoning", messages=HELLO, reasoning_effort="none"
    )
    assert reasoning_of(checked(none).choices[0].message) is None


def test_stop(client: OpenAI, bridge_server: BridgeServer) -> None:
    completion = checked(
        client.chat.completions.create(model="sim-echo", messages=HELLO, stop=["SDK"])
    )
    assert completion.choices[0].message.content == "You said: Hello from the "
    assert completion.choices[0].finish_reason == "stop"
    wire, _ = raw_stream(bridge_server, {"model": "sim-echo", "messages": HELLO, "stop": "from"})
    assert wire["choices"][0]["message"]["content"] == "You said: Hello "
    assert wire["choices"][0]["finish_reason"] == "stop"


LONG: list[Any] = [{"role": "user", "content": "one two three four five six seven eight " * 5}]


def test_max_tokens_is_length(client: OpenAI, bridge_server: BridgeServer) -> None:
    completion = checked(
        client.chat.completions.create(model="sim-echo", messages=LONG, max_tokens=5)
    )
    assert completion.choices[0].finish_reason == "length"
    assert completion.usage is not None and 0 < completion.usage.completion_tokens <= 5
    newer = checked(
        client.chat.completions.create(model="sim-echo", messages=LONG, max_completion_tokens=5)
    )
    assert newer.choices[0].finish_reason == "length"
    wire, _ = raw_stream(
        bridge_server, {"model": "sim-echo", "messages": LONG, "max_tokens": 5}, True
    )
    assert wire["choices"][0]["finish_reason"] == "length"
    assert wire["usage"]["completion_tokens"] <= 5


def test_keepalive_comments_while_the_model_is_silent(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "slow",
                "reply": [{"type": "pause", "seconds": 1.2}, {"type": "text", "text": "Done."}],
            }
        ]
    }
    server = bridge_server_factory("--keepalive-seconds", "0.3", script=script)
    body: dict[str, Any] = {"model": "sim-echo", "messages": [{"role": "user", "content": "slow"}]}
    response = post(f"{server.base_url}/chat/completions", {**body, "stream": True})
    assert response.status_code == 200
    assert response.text.startswith(": keepalive\n\n")
    sse = parse_sse(response.text)
    assert sse.keepalives >= 2
    assert check_stream(sse.chunks)["choices"][0]["message"]["content"] == "Done."
    with make_client(server) as client:
        chunks = list(client.chat.completions.create(**body, stream=True))
        with client.chat.completions.stream(**body) as stream:
            final = stream.get_final_completion()
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Done."
    assert final.choices[0].message.content == "Done."


# --------------------------------------------------------------------------- errors


def error_body(exc: openai.APIStatusError) -> dict[str, Any]:
    body: dict[str, Any] = exc.response.json()
    validate_error(body)
    return body


def test_n_above_one_is_a_400_naming_n(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="sim-echo", messages=HELLO, n=2)
    assert error_body(raised.value)["error"]["param"] == "n"
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="sim-echo", messages=HELLO, n=2, stream=True)


def test_unknown_model_is_a_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        client.chat.completions.create(model="no-such-model", messages=HELLO)
    body = error_body(raised.value)
    assert body["error"]["code"] == "model_not_found" and body["error"]["param"] == "model"


def test_a_wrong_api_key_is_a_401(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", "right-key")
    with make_client(server, api_key="wrong-key") as client:
        with pytest.raises(openai.AuthenticationError) as raised:
            client.chat.completions.create(model="sim-echo", messages=HELLO)
        error_body(raised.value)
    with make_client(server, api_key="right-key") as client:
        answer = checked(client.chat.completions.create(model="sim-echo", messages=HELLO))
    assert answer.choices[0].message.content == ECHO


def test_rate_limit_is_a_429_with_retry_after(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {"match": "busy", "reply": [{"type": "error", "code": "Blocked", "message": "Busy."}]}
        ]
    }
    server = bridge_server_factory(script=script)
    busy: list[Any] = [{"role": "user", "content": "busy"}]
    with make_client(server) as client:
        with pytest.raises(openai.RateLimitError) as raised:
            client.chat.completions.create(model="sim-echo", messages=busy)
        assert raised.value.response.headers["retry-after"]
        assert error_body(raised.value)["error"]["type"] == "rate_limit_error"
        with pytest.raises(openai.RateLimitError) as streamed:  # before streaming: a status
            list(client.chat.completions.create(model="sim-echo", messages=busy, stream=True))
        assert streamed.value.response.headers["retry-after"]


def test_a_failure_mid_stream_is_an_error_chunk(bridge_server_factory: StartServer) -> None:
    script = {
        "rules": [
            {
                "match": "fail",
                "reply": [
                    {"type": "text", "text": "Half an answer"},
                    {"type": "error", "code": "Other", "message": "The editor went away."},
                ],
            }
        ]
    }
    server = bridge_server_factory(script=script)
    body: dict[str, Any] = {
        "model": "sim-echo",
        "messages": [{"role": "user", "content": "fail now"}],
    }
    response = post(f"{server.base_url}/chat/completions", {**body, "stream": True})
    assert response.status_code == 200
    sse = parse_sse(response.text)
    # The error chunk ends the stream: no `data: [DONE]` after it (wire=False forbids one).
    assert DONE not in sse.chunks
    error = check_failed_stream(sse.chunks, wire=False)
    assert error["error"]["message"] == "The editor went away."
    assert sse.chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    with make_client(server) as client:
        with pytest.raises(openai.APIError, match=r"The editor went away\."):
            list(client.chat.completions.create(**body, stream=True))
        with pytest.raises(openai.InternalServerError) as raised:  # not streaming: a status
            client.chat.completions.create(**body)
    assert raised.value.status_code == 502
    assert error_body(raised.value)["error"]["code"] == "editor_error"
