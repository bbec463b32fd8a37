"""Copilot 0.67 passes CAPI's refusal of an over-long prompt on as `Request Failed: 400 {...}`
(chatMLFetcher.ts); each dialect answers it as its own context-length error, with the numbers,
before and during a stream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_backend import ScriptedBackend

from bridge.anthropic.errors import anthropic_error_body
from bridge.anthropic.events import Event
from bridge.anthropic.plan import MessagesPlan
from bridge.anthropic.stream import message_events
from bridge.core.backend import ChatMessage, ChatRequest, EditorError, TextPart
from bridge.core.editor_failures import classify
from bridge.core.errors import ApiError, from_editor
from bridge.gemini.chunks import Chunk, is_marker
from bridge.gemini.errors import gemini_error_body
from bridge.gemini.plan import GeminiPlan
from bridge.gemini.stream import generate_chunks

BODY = {
    "error": {
        "message": "prompt token count of 140123 exceeds the limit of 128000",
        "code": "model_max_prompt_tokens_exceeded",
    }
}
OVERFLOW = f"Request Failed: 400 {json.dumps(BODY)}"


def test_it_is_context_length_with_both_numbers() -> None:
    failure = classify("Other", "Error", OVERFLOW)
    assert failure.kind == "context_length"
    assert failure.overflow == (140123, 128000)
    assert failure.message == BODY["error"]["message"]


def test_the_code_alone_is_context_length_too() -> None:
    body = {"error": {"message": "too big", "code": "model_max_prompt_tokens_exceeded"}}
    failure = classify("Other", "Error", f"Request Failed: 400 {json.dumps(body)}")
    assert failure.kind == "context_length" and failure.overflow is None


def test_openai_dialects_get_context_length_exceeded_in_openais_words() -> None:
    error = from_editor("Other", OVERFLOW, "Error")
    assert (error.status, error.type, error.code) == (
        400,
        "invalid_request_error",
        "context_length_exceeded",
    )
    assert "maximum context length is 128000 tokens" in error.message
    assert "resulted in 140123 tokens" in error.message
    assert error.body()["error"]["code"] == "context_length_exceeded"


def test_messages_says_prompt_is_too_long_as_claude_code_matches() -> None:
    error = anthropic_error_body(from_editor("Other", OVERFLOW, "Error"))["error"]
    assert error == {
        "type": "invalid_request_error",
        "message": "prompt is too long: 140123 tokens > 128000 maximum",
    }


def test_gemini_says_invalid_argument_with_the_input_token_count() -> None:
    error = gemini_error_body(from_editor("Other", OVERFLOW, "Error"))["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert error["message"] == (
        "The input token count (140123) exceeds the maximum number of tokens allowed (128000)."
    )


def _chat() -> ChatRequest:
    return ChatRequest(
        model="sim", messages=[ChatMessage(role="user", content=[TextPart(value="one two")])]
    )


async def test_messages_stream_ends_with_the_prompt_too_long_error_event() -> None:
    backend = ScriptedBackend([[TextPart(value="a")]], error=EditorError("Other", OVERFLOW))
    events: list[Event] = []
    async for batch in message_events(backend, MessagesPlan(chat=_chat(), model="c", stream=True)):
        events += batch
    assert events[-1] == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 140123 tokens > 128000 maximum",
        },
    }


async def test_messages_before_the_stream_raises_the_400_with_the_numbers() -> None:
    backend = ScriptedBackend([], error=EditorError("Other", OVERFLOW))
    with pytest.raises(ApiError) as caught:
        async for _ in message_events(backend, MessagesPlan(chat=_chat(), model="c", stream=True)):
            pass
    assert caught.value.status == 400 and caught.value.overflow == (140123, 128000)


async def test_gemini_stream_ends_with_the_input_token_count_error() -> None:
    batches: list[list[Any]] = [[TextPart(value="a")], [TextPart(value="b")]]
    backend = ScriptedBackend(batches, error=EditorError("Other", OVERFLOW))
    chunks: list[Chunk] = []
    plan = GeminiPlan(chat=_chat(), model="gemini-x", stream=True)
    async for batch in generate_chunks(backend, plan):
        chunks += batch
    error: Any = [c for c in chunks if not is_marker(c)][-1]["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["message"].startswith("The input token count (140123) exceeds")
