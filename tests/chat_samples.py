"""Chat Completions answers as OpenAI sends them, written by hand for the validator's tests
(tests/test_chat_validation.py): a text answer, a tool-call answer, their streams."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from chat_stream_rules import DONE

ID = "chatcmpl-AM-sample"
CREATED = 1_790_000_000
MODEL = "sim-echo"
USAGE = {
    "prompt_tokens": 12,
    "completion_tokens": 5,
    "total_tokens": 17,
    "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 2, "audio_tokens": 0},
}
WEATHER_ARGS = {"city": "Paris"}


def completion(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": ID,
        "object": "chat.completion",
        "created": CREATED,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "refusal": None, **message},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
        "usage": copy.deepcopy(USAGE),
        "service_tier": "default",
        "system_fingerprint": None,
    }


TEXT_COMPLETION = completion({"content": "Hello there.", "reasoning_content": "Greet."})
TOOL_COMPLETION = completion(
    {
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps(WEATHER_ARGS)},
            }
        ]
    },
    "tool_calls",
)


def chunk(
    delta: dict[str, Any] | None = None, finish_reason: str | None = None, **extra: Any
) -> dict[str, Any]:
    """One chunk of choice 0 (no choices when `delta` is None)."""
    choices = (
        [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    )
    return {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": choices,
        "service_tier": "default",
        **extra,
    }


def text_stream(include_usage: bool = True) -> list[Any]:
    """TEXT_COMPLETION as OpenAI streams it: role and "" first, thinking, text in pieces, an
    empty delta with the finish_reason, the usage chunk, [DONE]."""
    usage: dict[str, Any] = {"usage": None} if include_usage else {}
    chunks = [
        chunk({"role": "assistant", "content": "", "refusal": None}, **usage),
        chunk({"reasoning_content": "Gr"}, **usage),
        chunk({"reasoning_content": "eet."}, **usage),
        chunk({"content": "Hello"}, **usage),
        chunk({"content": " there."}, **usage),
        chunk({}, "stop", **usage),
    ]
    if include_usage:
        chunks.append(chunk(usage=copy.deepcopy(USAGE)))
    return [*chunks, DONE]


def tool_stream() -> list[Any]:
    """TOOL_COMPLETION streamed: the call's id and name first, its arguments in pieces."""
    arguments = json.dumps(WEATHER_ARGS)
    head = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
    return [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [{"index": 0, **head}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[:5]}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[5:]}}]}),
        chunk({}, "tool_calls"),
        chunk(usage=copy.deepcopy(USAGE)),
        DONE,
    ]


def broken(sample: Any, change: Callable[[Any], object]) -> Any:
    """A deep copy of `sample` with `change` applied to it."""
    copied = copy.deepcopy(sample)
    change(copied)
    return copied


def sse_body(chunks: list[Any], keepalive: str = "") -> str:
    """The chunks as a server writes them: one `data:` frame each, `keepalive` before each."""
    frames = [chunk if chunk == DONE else json.dumps(chunk) for chunk in chunks]
    return "".join(f"{keepalive}data: {frame}\n\n" for frame in frames)
