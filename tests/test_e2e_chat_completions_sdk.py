"""End to end with the real `openai` Python SDK's Chat Completions client against a real
`maestro-bridge serve`: create, streams, the stream and parse helpers, a tool loop, tool_choice,
thinking, stop, length and keepalives (errors: tests/test_e2e_chat_completions_errors.py).

The SDK parses every body and chunk into its own types; on top, every answer, chunk and error
the bridge sends is checked against the Chat Completions schema kept in the repository
(tests/chat_validation.py), on the wire (raw SSE) as well as after the SDK parsed it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from chat_http import (
    ECHO,
    HELLO,
    WEATHER_TOOL,
    as_json,
    checked,
    make_client,
    raw_stream,
    reasoning_of,
    same_answer,
)
from chat_validation import DONE, check_stream, parse_sse, validate_completion
from conftest import BridgeServer, StartServer
from openai import AsyncOpenAI, OpenAI
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
from plain_http import post
from pydantic import BaseModel


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[OpenAI]:
    with make_client(bridge_server) as sdk:
        yield sdk


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
    assert usage.prompt_tokens_details.cached_tokens is not None
    assert usage.prompt_tokens_details.cached_tokens <= usage.prompt_tokens
    # The same request again: as OpenAI bills it, a prompt under 1,024 tokens is never cached.
    again = client.chat.completions.create(model="sim-echo", messages=HELLO).usage
    assert again is not None and again.prompt_tokens_details is not None
    assert usage.prompt_tokens < 1024 and again.prompt_tokens_details.cached_tokens == 0
    # A long one is, in steps of 128 tokens past the first 1,024.
    long: list[ChatCompletionMessageParam] = [{"role": "user", "content": "word " * 1500}]
    first = client.chat.completions.create(model="sim-echo", messages=long).usage
    repeat = client.chat.completions.create(model="sim-echo", messages=long).usage
    assert first is not None and repeat is not None and repeat.prompt_tokens_details is not None
    cached = repeat.prompt_tokens_details.cached_tokens
    assert cached is not None and cached % 128 == 0 and first.prompt_tokens - 128 < cached


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


TIME_TOOL: ChatCompletionToolParam = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {
            "type": "object",
            "properties": {"zone": {"type": "string"}},
            "required": ["zone"],
        },
    },
}


def test_tool_choice(client: OpenAI) -> None:
    tools = [WEATHER_TOOL, TIME_TOOL]
    none = checked(
        client.chat.completions.create(
            model="sim-echo", messages=HELLO, tools=tools, tool_choice="none"
        )
    )
    assert none.choices[0].message.tool_calls is None and none.choices[0].finish_reason == "stop"
    named = checked(
        client.chat.completions.create(
            model="sim-echo",
            messages=HELLO,
            tools=tools,
            tool_choice={"type": "function", "function": {"name": "get_time"}},
        )
    )
    calls = named.choices[0].message.tool_calls or []
    assert [call.function.name for call in calls if call.type == "function"] == ["get_time"]
    after_tools: list[Any] = [
        *HELLO,
        named.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": calls[0].id, "content": "Noon."},
    ]
    required = checked(
        client.chat.completions.create(
            model="sim-echo", messages=after_tools, tools=tools, tool_choice="required"
        )
    )
    assert required.choices[0].finish_reason == "tool_calls"  # a call, though a result came


async def test_async_client_stream(bridge_server: BridgeServer) -> None:
    async with AsyncOpenAI(
        base_url=bridge_server.base_url, api_key="unused", max_retries=0, timeout=30
    ) as client:
        stream = await client.chat.completions.create(model="sim-echo", messages=HELLO, stream=True)
        chunks = [chunk async for chunk in stream]
    folded = check_stream([as_json(c) for c in chunks], wire=False)
    assert folded["choices"][0]["message"]["content"] == ECHO


def test_an_image_is_read_and_counted(client: OpenAI) -> None:
    pixel = (
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
        "+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    text: dict[str, Any] = {"type": "text", "text": "What is in it?"}
    image: dict[str, Any] = {"type": "image_url", "image_url": {"url": pixel}}
    only_text: list[Any] = [{"role": "user", "content": [text]}]
    text_and_image: list[Any] = [{"role": "user", "content": [text, image]}]
    plain = checked(client.chat.completions.create(model="sim-echo", messages=only_text))
    with_image = checked(client.chat.completions.create(model="sim-echo", messages=text_and_image))
    assert with_image.choices[0].message.content == "You said: What is in it?"
    assert plain.usage is not None and with_image.usage is not None
    assert with_image.usage.prompt_tokens > plain.usage.prompt_tokens


# --------------------------------------------------------------------------- thinking, limits


def test_thinking_as_reasoning_content(client: OpenAI, bridge_server: BridgeServer) -> None:
    # An effort is what makes Copilot's Claude (and so sim-reasoning) think at all.
    completion = checked(
        client.chat.completions.create(
            model="sim-reasoning", messages=HELLO, reasoning_effort="low"
        )
    )
    message = completion.choices[0].message
    reasoning = reasoning_of(message)
    assert reasoning is not None and reasoning.startswith("Considering the request")
    assert message.content == ECHO
    usage = completion.usage
    assert usage is not None and usage.completion_tokens_details is not None
    assert 0 < (usage.completion_tokens_details.reasoning_tokens or 0) < usage.completion_tokens
    body = {"model": "sim-reasoning", "messages": HELLO, "reasoning_effort": "low"}
    wire, _ = raw_stream(bridge_server, body, include_usage=True)
    assert wire["choices"][0]["message"]["reasoning_content"] == reasoning
    with client.chat.completions.stream(
        model="sim-reasoning", messages=HELLO, reasoning_effort="low"
    ) as stream:
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
