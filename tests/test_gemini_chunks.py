"""The Gemini chunk builder and its fold: editor parts -> `GenerateContentResponse` chunks."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from bridge.core.backend import DataPart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts
from bridge.core.errors import ApiError
from bridge.gemini.chunks import (
    KEEPALIVE,
    MAX_TOKENS,
    STOP,
    ChunkBuilder,
    fold,
    merge_texts,
    usage_metadata,
)
from bridge.gemini.errors import gemini_error_body, rpc_status


def parts_of(chunk: dict[str, Any]) -> list[dict[str, Any]]:
    candidates = chunk["candidates"]
    assert isinstance(candidates, list) and len(candidates) == 1
    content = candidates[0]["content"]
    assert content["role"] == "model"
    parts: list[dict[str, object]] = content["parts"]
    return parts


def test_each_batch_is_one_chunk_sent_when_the_next_one_comes() -> None:
    builder = ChunkBuilder("gemini-x")
    assert builder.add([TextPart(value="Hel"), TextPart(value="lo")]) == []  # held back
    sent = builder.add([TextPart(value=" there")])
    assert len(sent) == 1 and parts_of(sent[0]) == [{"text": "Hello"}]
    assert sent[0]["modelVersion"] == "gemini-x"
    assert sent[0]["responseId"].startswith("AM-")
    assert "finishReason" not in sent[0]["candidates"][0]
    last = builder.finish(STOP, UsageCounts(5, 3))
    assert len(last) == 1 and parts_of(last[0]) == [{"text": " there"}]
    assert last[0]["candidates"][0]["finishReason"] == STOP
    assert last[0]["usageMetadata"] == {
        "promptTokenCount": 5,
        "candidatesTokenCount": 3,
        "totalTokenCount": 8,
    }
    assert {c["responseId"] for c in [*sent, *last]} == {builder.response_id}


def test_release_sends_the_held_chunk_and_finish_then_has_an_empty_text() -> None:
    builder = ChunkBuilder("m")
    builder.add([TextPart(value="a")])
    released = builder.release()
    assert [parts_of(c) for c in released] == [[{"text": "a"}]]
    assert builder.release() == []
    last = builder.finish(MAX_TOKENS, UsageCounts(1, 1))
    # Never a chunk without parts: Google's SDKs read that as an invalid turn.
    assert parts_of(last[0]) == [{"text": ""}]
    assert last[0]["candidates"][0]["finishReason"] == MAX_TOKENS


def test_thoughts_only_when_asked_but_counted_always() -> None:
    shown = ChunkBuilder("m", include_thoughts=True)
    shown.add([ThinkingPart(value="Hmm. "), ThinkingPart(value="Yes."), TextPart(value="Hi")])
    last = shown.finish(STOP, UsageCounts(1, 1))
    assert parts_of(last[0]) == [{"text": "Hmm. Yes.", "thought": True}, {"text": "Hi"}]
    hidden = ChunkBuilder("m")
    assert hidden.add([ThinkingPart(value="secret")]) == []
    assert hidden.reasoning_text == ["secret"]
    assert parts_of(hidden.finish(STOP, UsageCounts(1, 1))[0]) == [{"text": ""}]


def test_function_calls_keep_a_usable_editor_id_else_get_one() -> None:
    builder = ChunkBuilder("m")
    builder.add(
        [
            ToolCallPart(callId="call_1", name="get_weather", input={"city": "Paris"}),
            ToolCallPart(callId="call_1", name="get_weather", input={"city": "Rome"}),
            ToolCallPart(callId="bad id!", name="noop", input={}),
        ]
    )
    calls = [p["functionCall"] for p in parts_of(builder.finish(STOP, UsageCounts(1, 1))[0])]
    assert calls[0] == {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}
    assert calls[1]["id"].startswith("AM-call-") and calls[1]["args"] == {"city": "Rome"}
    assert calls[2]["id"].startswith("AM-call-") and calls[2]["args"] == {}
    assert calls[1]["id"] != calls[2]["id"]
    assert builder.tool_calls == 3


def test_usage_part_from_the_editor_wins() -> None:
    builder = ChunkBuilder("m")
    raw = {"prompt_tokens": 7, "completion_tokens": 9}
    raw["completion_tokens_details"] = {"reasoning_tokens": 4}  # type: ignore[assignment]
    data = base64.b64encode(json.dumps(raw).encode()).decode()
    assert builder.add([DataPart(mimeType="usage", data=data)]) == []
    assert builder.usage == UsageCounts(7, 9, 4)
    assert usage_metadata(builder.usage) == {
        "promptTokenCount": 7,
        "candidatesTokenCount": 5,
        "thoughtsTokenCount": 4,
        "totalTokenCount": 16,
    }
    assert usage_metadata(UsageCounts(7, 1, 0, 3))["cachedContentTokenCount"] == 3


def test_merge_texts_keeps_kinds_and_order() -> None:
    parts: list[dict[str, Any]] = [
        {"text": "a"},
        {"text": ""},
        {"text": "b"},
        {"text": "t", "thought": True},
        {"functionCall": {"name": "f", "args": {}}},
        {"text": "c"},
    ]
    assert merge_texts(parts) == [
        {"text": "ab"},
        {"text": "t", "thought": True},
        {"functionCall": {"name": "f", "args": {}}},
        {"text": "c"},
    ]


def test_fold_is_one_answer_of_the_chunks() -> None:
    builder = ChunkBuilder("m", include_thoughts=True)
    chunks = builder.add([ThinkingPart(value="think"), TextPart(value="One ")])
    chunks += builder.add([TextPart(value="two")])
    chunks += [KEEPALIVE]
    chunks += builder.add([ToolCallPart(callId="c1", name="f", input={"x": 1})])
    chunks += builder.finish(STOP, UsageCounts(2, 3, 1))
    answer = fold(chunks)
    assert parts_of(answer) == [
        {"text": "think", "thought": True},
        {"text": "One two"},
        {"functionCall": {"id": "c1", "name": "f", "args": {"x": 1}}},
    ]
    assert answer["candidates"][0]["finishReason"] == STOP
    assert answer["candidates"][0]["index"] == 0
    assert answer["usageMetadata"]["thoughtsTokenCount"] == 1
    assert answer["responseId"] == builder.response_id and answer["modelVersion"] == "m"


def test_fold_of_an_empty_answer_has_one_empty_text() -> None:
    builder = ChunkBuilder("m")
    answer = fold(builder.finish(STOP, UsageCounts(1, 0)))
    assert parts_of(answer) == [{"text": ""}]


def test_fold_raises_on_an_error_chunk_and_on_no_finish() -> None:
    builder = ChunkBuilder("m")
    builder.add([TextPart(value="half")])
    failed = builder.fail(ApiError(503, "Gone.", type="server_error"))
    assert parts_of(failed[0]) == [{"text": "half"}]  # what was held goes out first
    assert failed[-1] == {"error": {"code": 503, "message": "Gone.", "status": "UNAVAILABLE"}}
    with pytest.raises(ApiError) as raised:
        fold(failed)
    assert raised.value.status == 503
    with pytest.raises(ApiError):
        fold(failed[:1])


def test_error_envelope_statuses_and_details() -> None:
    assert [rpc_status(s) for s in (400, 401, 403, 404, 429, 500, 502, 504, 418, 599)] == [
        "INVALID_ARGUMENT",
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
        "NOT_FOUND",
        "RESOURCE_EXHAUSTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DEADLINE_EXCEEDED",
        "FAILED_PRECONDITION",
        "INTERNAL",
    ]
    busy = gemini_error_body(ApiError(429, "Busy.", headers={"Retry-After": "10"}))
    assert busy["error"]["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "10s"}
    ]
    bad = gemini_error_body(ApiError(400, "No.", param="generationConfig.candidateCount"))
    violation = bad["error"]["details"][0]
    assert violation["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert violation["fieldViolations"] == [
        {"field": "generationConfig.candidateCount", "description": "No."}
    ]
