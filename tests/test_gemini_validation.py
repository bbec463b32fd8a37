"""The Gemini schema and validator (tests/gemini_validation.py): good answers pass (and the
google-genai SDK reads them as its own client does), each broken answer and each stream rule
fails."""

from __future__ import annotations

from typing import Any

import pytest
from gemini_samples import (
    CALL_ID,
    COUNT,
    DETAILED_ERROR,
    ERRORS,
    MAX_TOKENS_ANSWER,
    MODEL_OBJ,
    MODELS,
    TEXT_ANSWER,
    TOOL_ANSWER,
    WEATHER_ARGS,
    broken,
    error,
    sse_body,
    text_stream,
    tool_stream,
)
from gemini_validation import (
    check_stream,
    comparable,
    fold_stream,
    parse_json_array,
    parse_sse,
    schema,
    validate_answer,
    validate_count,
    validate_error,
    validate_model,
    validate_models,
)
from google.genai import models as genai_models
from google.genai import types
from jsonschema import Draft202012Validator

# --------------------------------------------------------------------------- good samples


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(schema())


def sdk_answer(obj: dict[str, Any]) -> types.GenerateContentResponse:
    """What google-genai makes of a generateContent body (its own conversion, as in
    Models.generate_content)."""
    converted = genai_models._GenerateContentResponse_from_mldev(obj)
    return types.GenerateContentResponse._from_response(response=converted, kwargs={})


@pytest.mark.parametrize(
    "sample", [TEXT_ANSWER, TOOL_ANSWER, MAX_TOKENS_ANSWER], ids=["text", "tool", "max"]
)
def test_good_answers_pass(sample: dict[str, Any]) -> None:
    validate_answer(sample)


def test_the_sdk_reads_the_samples_as_the_validator_does() -> None:
    text = sdk_answer(TEXT_ANSWER)
    assert text.text == "Hello there, friend."
    assert text.response_id == TEXT_ANSWER["responseId"]
    assert text.usage_metadata is not None and text.usage_metadata.total_token_count == 12
    tool = sdk_answer(TOOL_ANSWER)
    assert tool.function_calls is not None
    [call] = tool.function_calls
    assert (call.id, call.name, call.args) == (CALL_ID, "get_weather", WEATHER_ARGS)
    assert tool.candidates is not None and tool.candidates[0].content is not None
    parts = tool.candidates[0].content.parts or []
    assert [part.thought for part in parts] == [True, None, None]
    assert parts[2].thought_signature == b"signature"
    assert tool.candidates[0].finish_reason == types.FinishReason.STOP
    assert sdk_answer(MAX_TOKENS_ANSWER).candidates[0].finish_reason == "MAX_TOKENS"  # type: ignore[index]


def test_good_streams_pass_and_fold_into_their_answer() -> None:
    assert check_stream(text_stream()) == TEXT_ANSWER
    assert check_stream(tool_stream()) == TOOL_ANSWER
    assert fold_stream(tool_stream()) == TOOL_ANSWER


def test_each_chunk_is_what_the_sdk_reads() -> None:
    texts = [sdk_answer(chunk).text for chunk in text_stream()]
    assert "".join(text or "" for text in texts) == "Hello there, friend."


def test_the_fold_keeps_a_signed_text_apart_from_the_text_after_it() -> None:
    chunks = text_stream()
    chunks[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "AAAA"
    parts = check_stream(chunks)["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "Hello", "thoughtSignature": "AAAA"}, {"text": " there, friend."}]


def test_a_count_models_and_errors_pass() -> None:
    validate_count(COUNT)
    validate_count({"totalTokens": 0, "cachedContentTokenCount": 0})
    validate_model(MODEL_OBJ)
    validate_models(MODELS)
    validate_models({"models": []})
    for status, body in ERRORS:
        validate_error(body, status)
    validate_error(DETAILED_ERROR)


def test_parse_sse_reads_frames_and_counts_blank_line_keepalives() -> None:
    chunks = text_stream()
    parsed = parse_sse(sse_body(chunks, keepalive="\n"))
    assert parsed.chunks == chunks and parsed.keepalives == len(chunks)
    crlf = parse_sse(sse_body(chunks).replace("\n", "\r\n").encode())
    assert crlf.chunks == chunks and crlf.keepalives == 0
    assert parse_sse('data: {"a":\ndata: 1}\n\n').chunks == [{"a": 1}]
    with pytest.raises(AssertionError, match="not JSON"):
        parse_sse("data: {\n\n")
    with pytest.raises(AssertionError, match="neither data: nor blank"):
        parse_sse(": keepalive\n\n" + sse_body(chunks))
    with pytest.raises(AssertionError, match="neither data: nor blank"):
        parse_sse("event: chunk\ndata: {}\n\n")
    with pytest.raises(AssertionError, match="inside a frame"):
        parse_sse("data: {}\n")


def test_parse_json_array_reads_a_stream_without_alt_sse() -> None:
    chunks = text_stream()
    body = "[" + ",\n".join(sse_body([c]).removeprefix("data: ").strip() for c in chunks) + "]"
    assert parse_json_array(body) == chunks
    with pytest.raises(AssertionError, match="not one JSON array"):
        parse_json_array(body[:-1])
    with pytest.raises(AssertionError, match="not an array of objects"):
        parse_json_array("[1]")


def test_comparable_drops_what_differs_between_two_runs() -> None:
    other = broken(TOOL_ANSWER, lambda a: a.update(responseId="AM-other"))
    other["candidates"][0]["content"]["parts"][2]["functionCall"]["id"] = "AM-call-other"
    other["candidates"][0]["content"]["parts"][2]["thoughtSignature"] = "b3RoZXI"
    assert comparable(other) == comparable(TOOL_ANSWER)
    assert comparable(other) != comparable(TEXT_ANSWER)
    split = broken(
        TEXT_ANSWER,
        lambda a: a["candidates"][0]["content"].update(
            parts=[{"text": "Hello there,"}, {"text": " friend."}]
        ),
    )
    assert comparable(split) == comparable(TEXT_ANSWER)


# --------------------------------------------------------------------------- broken answers


def candidate(obj: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = obj["candidates"][0]
    return first


def parts(obj: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = candidate(obj)["content"]["parts"]
    return found


def call(obj: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = parts(obj)[2]["functionCall"]
    return found


BROKEN_ANSWERS = {
    "no responseId": lambda a: a.pop("responseId"),
    "no modelVersion": lambda a: a.pop("modelVersion"),
    "no usageMetadata": lambda a: a.pop("usageMetadata"),
    "snake_case key": lambda a: a.update(response_id=a.pop("responseId")),
    "unknown key": lambda a: a.update(extra=1),
    "no candidates": lambda a: a.update(candidates=[]),
    "two candidates": lambda a: a["candidates"].append(candidate(a)),
    "candidate index 1": lambda a: candidate(a).update(index=1),
    "no index": lambda a: candidate(a).pop("index"),
    "no finishReason": lambda a: candidate(a).pop("finishReason"),
    "finishReason in lower case": lambda a: candidate(a).update(finishReason="stop"),
    "OpenAI finish reason": lambda a: candidate(a).update(finishReason="TOOL_CALLS"),
    "unknown candidate key": lambda a: candidate(a).update(message={}),
    "no content": lambda a: candidate(a).pop("content"),
    "role user": lambda a: candidate(a)["content"].update(role="user"),
    "role assistant": lambda a: candidate(a)["content"].update(role="assistant"),
    "no role": lambda a: candidate(a)["content"].pop("role"),
    "no parts": lambda a: candidate(a)["content"].update(parts=[]),
    "a part with no data": lambda a: parts(a).append({"thought": True}),
    "a part with two data fields": lambda a: parts(a)[1].update(functionCall=call(a)),
    "a thought that is not text": lambda a: parts(a)[2].update(thought=True),
    "thought as a string": lambda a: parts(a)[0].update(thought="true"),
    "an empty text part": lambda a: parts(a).append({"text": ""}),
    "text not a string": lambda a: parts(a)[1].update(text=["Let me look."]),
    "unknown part key": lambda a: parts(a)[1].update(type="text"),
    "a signature that is not base64": lambda a: parts(a)[2].update(thoughtSignature="not base64!"),
    "call without id": lambda a: call(a).pop("id"),
    "call without name": lambda a: call(a).pop("name"),
    "call without args": lambda a: call(a).pop("args"),
    "call args as a JSON string": lambda a: call(a).update(args='{"city": "Paris"}'),
    "call with OpenAI's arguments": lambda a: call(a).update(arguments="{}"),
    "two calls, one id": lambda a: parts(a).append({"functionCall": dict(call(a))}),
    "inlineData without mimeType": lambda a: parts(a).append({"inlineData": {"data": "AAAA"}}),
    "usage without total": lambda a: a["usageMetadata"].pop("totalTokenCount"),
    "usage without candidates count": lambda a: a["usageMetadata"].pop("candidatesTokenCount"),
    "total is not the sum": lambda a: a["usageMetadata"].update(totalTokenCount=39),
    "negative tokens": lambda a: a["usageMetadata"].update(promptTokenCount=-1),
    "tokens as text": lambda a: a["usageMetadata"].update(promptTokenCount="30"),
    "cached above prompt": lambda a: a["usageMetadata"].update(cachedContentTokenCount=31),
    "thoughts but no thoughtsTokenCount": lambda a: a["usageMetadata"].update(
        thoughtsTokenCount=0, totalTokenCount=39
    ),
    "unknown usage key": lambda a: a["usageMetadata"].update(reasoningTokenCount=1),
    "OpenAI's usage": lambda a: a.update(usage={"prompt_tokens": 1}),
}


@pytest.mark.parametrize("change", BROKEN_ANSWERS.values(), ids=BROKEN_ANSWERS.keys())
def test_broken_answers_fail(change: Any) -> None:
    with pytest.raises(AssertionError):
        validate_answer(broken(TOOL_ANSWER, change))


BROKEN_OTHERS = {
    "count without totalTokens": (validate_count, {}),
    "count as OpenAI's input_tokens": (validate_count, {"input_tokens": 3}),
    "count negative": (validate_count, {"totalTokens": -1}),
    "count with an unknown key": (validate_count, {"totalTokens": 3, "model": "x"}),
    "model name without models/": (validate_model, {**MODEL_OBJ, "name": MODEL_OBJ["version"]}),
    "model without name": (validate_model, {k: v for k, v in MODEL_OBJ.items() if k != "name"}),
    "model without generateContent": (
        validate_model,
        {**MODEL_OBJ, "supportedGenerationMethods": ["countTokens"]},
    ),
    "model with a PascalCase method": (
        validate_model,
        {**MODEL_OBJ, "supportedGenerationMethods": ["GenerateContent"]},
    ),
    "model limit as text": (validate_model, {**MODEL_OBJ, "inputTokenLimit": "1000"}),
    "model with OpenAI's id": (validate_model, {**MODEL_OBJ, "id": "gemini"}),
    "models as OpenAI's data": (validate_models, {"object": "list", "data": [MODEL_OBJ]}),
    "models listed twice": (validate_models, {"models": [MODEL_OBJ, MODEL_OBJ]}),
    "an empty nextPageToken": (validate_models, {"models": [], "nextPageToken": ""}),
    "error without status": (validate_error, {"error": {"code": 400, "message": "x"}}),
    "error in OpenAI's shape": (
        validate_error,
        {"error": {"message": "x", "type": "invalid_request_error", "param": None, "code": None}},
    ),
    "error status in lower case": (validate_error, error(400, "invalid_argument")),
    "error status unknown": (validate_error, error(400, "BAD_REQUEST")),
    "error code as text": (
        validate_error,
        {"error": {**error(400, "INVALID_ARGUMENT")["error"], "code": "400"}},
    ),
    "error code 200": (validate_error, error(200, "OK")),
    "error status against its code": (validate_error, error(404, "INVALID_ARGUMENT")),
    "error 429 as UNAVAILABLE": (validate_error, error(429, "UNAVAILABLE")),
    "error without message": (validate_error, error(400, "INVALID_ARGUMENT", "")),
    "error detail without @type": (
        validate_error,
        {"error": {**error(400, "INVALID_ARGUMENT")["error"], "details": [{"reason": "x"}]}},
    ),
    "error with a top-level key": (validate_error, {**error(500, "INTERNAL"), "code": 500}),
}


@pytest.mark.parametrize("case", BROKEN_OTHERS.values(), ids=BROKEN_OTHERS.keys())
def test_broken_counts_models_and_errors_fail(case: tuple[Any, dict[str, Any]]) -> None:
    validate, obj = case
    with pytest.raises(AssertionError):
        validate(obj)


def test_an_error_whose_code_is_not_the_http_status_fails() -> None:
    with pytest.raises(AssertionError, match="HTTP status was 500"):
        validate_error(error(503, "UNAVAILABLE"), 500)
