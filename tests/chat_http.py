"""Helpers of the Chat Completions end-to-end tests: plain HTTP (what the bridge put on the
wire), the openai SDK client, and the checks of what either got (tests/chat_validation.py)."""

from __future__ import annotations

from typing import Any

import openai
from chat_validation import SseBody, check_stream, comparable, parse_sse, validate_completion
from chat_validation import validate_error as validate_error_body
from conftest import BridgeServer
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionToolParam
from plain_http import post


def make_client(server: BridgeServer, api_key: str = "unused") -> OpenAI:
    # No retries: a 5xx or a dropped connection must fail the test, not be papered over.
    return OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0, timeout=30)


def as_json(model: Any) -> dict[str, Any]:
    """An SDK object as the JSON it was parsed from (extra fields such as
    `reasoning_content` included)."""
    data: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True, warnings=False)
    return data


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


def error_body(exc: openai.APIStatusError) -> dict[str, Any]:
    """The body of the error the SDK raised, validated against the error envelope."""
    body: dict[str, Any] = exc.response.json()
    validate_error_body(body)
    return body
