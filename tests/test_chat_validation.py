"""The Chat Completions schema and validator (tests/chat_validation.py): good answers pass (and
the openai SDK's own types and stream accumulator agree with them), each broken answer and each
stream rule fails."""

from __future__ import annotations

from typing import Any

import pytest
from chat_samples import (
    TEXT_COMPLETION,
    TOOL_COMPLETION,
    USAGE,
    broken,
    chunk,
    sse_body,
    text_stream,
    tool_stream,
)
from chat_validation import (
    DONE,
    check_stream,
    comparable,
    parse_sse,
    schema,
    validate_chunk,
    validate_completion,
    validate_error,
)
from jsonschema import Draft202012Validator
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from bridge.core.errors import ApiError

# --------------------------------------------------------------------------- good samples


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("sample", [TEXT_COMPLETION, TOOL_COMPLETION], ids=["text", "tool"])
def test_good_completions_pass_and_the_sdk_reads_them(sample: dict[str, Any]) -> None:
    validate_completion(sample)
    parsed = ChatCompletion.model_validate(sample)
    assert parsed.model_dump(exclude_unset=True) == sample


def test_good_streams_pass_and_fold_into_their_completion() -> None:
    assert comparable(check_stream(text_stream(), include_usage=True)) == comparable(
        TEXT_COMPLETION
    )
    assert comparable(check_stream(tool_stream(), include_usage=True)) == comparable(
        TOOL_COMPLETION
    )
    without_usage = check_stream(text_stream(include_usage=False))
    assert "usage" not in without_usage
    assert without_usage["choices"] == TEXT_COMPLETION["choices"]
    # What an SDK hands over: the same chunks without [DONE].
    assert check_stream(text_stream()[:-1], include_usage=True, wire=False)["usage"] == USAGE


@pytest.mark.parametrize("stream", [text_stream, tool_stream], ids=["text", "tool"])
def test_the_fold_agrees_with_the_sdk_accumulator(stream: Any) -> None:
    chunks = stream()
    folded = check_stream(chunks, include_usage=True)
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for data in chunks[:-1]:
        state.handle_chunk(ChatCompletionChunk.model_validate(data))
    sdk = state.get_final_completion().choices[0]
    ours = folded["choices"][0]
    assert sdk.finish_reason == ours["finish_reason"]
    assert sdk.message.content == ours["message"]["content"]
    calls = [
        call.model_dump(include={"id", "type", "function"}) for call in sdk.message.tool_calls or []
    ]
    for call in calls:
        call["function"].pop("parsed_arguments", None)
    assert calls == ours["message"].get("tool_calls", [])


def test_parse_sse_reads_frames_counts_keepalives_and_keeps_done() -> None:
    chunks = text_stream()
    parsed = parse_sse(sse_body(chunks, keepalive=": keepalive\n\n"))
    assert parsed.chunks == chunks and parsed.chunks[-1] == DONE
    assert parsed.keepalives == len(chunks)
    crlf = parse_sse(sse_body(chunks).replace("\n", "\r\n").encode())
    assert crlf.chunks == chunks and crlf.keepalives == 0
    two_lines = parse_sse('data: {"a":\ndata: 1}\n\n')
    assert two_lines.chunks == [{"a": 1}]
    with pytest.raises(AssertionError, match="not JSON"):
        parse_sse("data: {\n\n")
    with pytest.raises(AssertionError, match="neither data: nor a comment"):
        parse_sse("event: chunk\ndata: {}\n\n")


def test_error_bodies_pass_and_the_bridge_error_shape_is_one() -> None:
    validate_error(ApiError(400, "n: only 1 is supported", param="n").body())
    validate_error({"error": {"message": "x", "type": "server_error", "param": None, "code": "e"}})


def test_comparable_drops_what_differs_between_two_answers() -> None:
    other = broken(TOOL_COMPLETION, lambda c: c.update(id="chatcmpl-AM-2", created=1))
    other["choices"][0]["message"]["tool_calls"][0]["id"] = "call_2"
    assert comparable(other) == comparable(TOOL_COMPLETION)
    assert comparable(other) != comparable(TEXT_COMPLETION)


# --------------------------------------------------------------------------- broken answers


def first_message(completion: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = completion["choices"][0]["message"]
    return message


BROKEN_COMPLETIONS = {
    "no id": lambda c: c.pop("id"),
    "object is a chunk": lambda c: c.update(object="chat.completion.chunk"),
    "created as text": lambda c: c.update(created="now"),
    "unknown key": lambda c: c.update(extra=1),
    "unknown finish_reason": lambda c: c["choices"][0].update(finish_reason="end_turn"),
    "null finish_reason": lambda c: c["choices"][0].update(finish_reason=None),
    "no logprobs": lambda c: c["choices"][0].pop("logprobs"),
    "role user": lambda c: first_message(c).update(role="user"),
    "no content": lambda c: first_message(c).pop("content"),
    "no refusal": lambda c: first_message(c).pop("refusal"),
    "content as parts": lambda c: first_message(c).update(content=[{"type": "text"}]),
    "reasoning_content not a string": lambda c: first_message(c).update(reasoning_content=1),
    "unknown message key": lambda c: first_message(c).update(reasoning="x"),
    "tool call without id": lambda c: first_message(c)["tool_calls"][0].pop("id"),
    "tool call arguments as object": lambda c: first_message(c)["tool_calls"][0]["function"].update(
        arguments={"city": "Paris"}
    ),
    "tool call of unknown type": lambda c: first_message(c)["tool_calls"][0].update(type="x"),
    "empty tool_calls": lambda c: first_message(c).update(tool_calls=[]),
    "tool_calls finish without calls": lambda c: first_message(c).pop("tool_calls"),
    "two calls, one id": lambda c: first_message(c)["tool_calls"].append(
        first_message(c)["tool_calls"][0]
    ),
    "choice index 1 alone": lambda c: c["choices"][0].update(index=1),
    "usage without total": lambda c: c["usage"].pop("total_tokens"),
    "total is not the sum": lambda c: c["usage"].update(total_tokens=99),
    "negative tokens": lambda c: c["usage"].update(prompt_tokens=-1),
    "cached above prompt": lambda c: c["usage"]["prompt_tokens_details"].update(cached_tokens=13),
    "reasoning above completion": lambda c: c["usage"]["completion_tokens_details"].update(
        reasoning_tokens=6
    ),
    "unknown usage detail": lambda c: c["usage"]["prompt_tokens_details"].update(x=1),
    "unknown service tier": lambda c: c.update(service_tier="gold"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_COMPLETIONS))
def test_broken_completions_fail(case: str) -> None:
    with pytest.raises(AssertionError, match=r"chat\.completion|choice"):
        validate_completion(broken(TOOL_COMPLETION, BROKEN_COMPLETIONS[case]))


BROKEN_CHUNKS: dict[str, dict[str, Any]] = {
    "object is a completion": {**chunk({"content": "x"}), "object": "chat.completion"},
    # `annotations` is a delta key too (search models stream it): `tool_call_id` is none.
    "delta with a key no delta has": chunk({"content": "x", "tool_call_id": "call_1"}),
    "content as a number": chunk({"content": 3}),
    "unknown role": chunk({"role": "model"}),
    "choice without finish_reason": {
        **chunk(),
        "choices": [{"index": 0, "delta": {"content": "x"}}],
    },
    "tool call delta without index": chunk({"tool_calls": [{"id": "call_1"}]}),
    "tool call delta with arguments as object": chunk(
        {"tool_calls": [{"index": 0, "function": {"arguments": {}}}]}
    ),
    "usage as a number": chunk(usage=3),
    "no choices key": {key: value for key, value in chunk().items() if key != "choices"},
}


@pytest.mark.parametrize("case", sorted(BROKEN_CHUNKS))
def test_broken_chunks_fail(case: str) -> None:
    with pytest.raises(AssertionError, match="not a valid ChatCompletionChunk"):
        validate_chunk(BROKEN_CHUNKS[case])


@pytest.mark.parametrize(
    "body",
    [
        {"error": {"message": "x", "type": "invalid_request_error", "param": None}},
        {"error": {"message": "x", "type": "invalid_request_error", "code": None}},
        {"error": {"type": "server_error", "param": None, "code": None}},
        {"error": {"message": "x", "type": "server_error", "param": None, "code": 500}},
        {"error": {"message": "x", "type": "e", "param": None, "code": None, "status": 500}},
        {"error": "server_error"},
        {"message": "x", "type": "server_error", "param": None, "code": None},
        {"type": "error", "error": {"message": "x", "type": "e", "param": None, "code": None}},
    ],
)
def test_broken_error_bodies_fail(body: dict[str, Any]) -> None:
    with pytest.raises(AssertionError, match="not a valid Error"):
        validate_error(body)
