"""The Anthropic Messages schema and validator (tests/anthropic_validation.py): good answers
pass (and the anthropic SDK's own types accept them too), each kind of broken answer fails."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Message, MessageTokensCount, ModelInfo
from anthropic_replies import as_events, as_message, error_body, sse_frame, text_answer
from anthropic_replies import tool_use_answer as tool_answer
from anthropic_samples import MODEL, MODEL_LIST, broken, named
from anthropic_validation import (
    parse_sse,
    schema,
    validate_count_tokens,
    validate_error,
    validate_event,
    validate_message,
    validate_model_list,
)
from jsonschema import Draft202012Validator

# --------------------------------------------------------------------------- good samples


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize(
    "message",
    [
        as_message(text_answer("Hi"), MODEL, 3),
        as_message(tool_answer("Bash", {"command": "ls"}), MODEL, 3),
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "sim-echo",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "c2ln"},
                {"type": "redacted_thinking", "data": "b3BhcXVl"},
                {"type": "text", "text": "ok", "citations": None},
            ],
            "stop_reason": "max_tokens",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 1,
                "output_tokens": 2,
                "service_tier": "standard",
                "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
            },
            "context_management": {"applied_edits": []},
        },
    ],
)
def test_good_messages_pass_and_the_sdk_reads_them(message: dict[str, Any]) -> None:
    validate_message(message)
    parsed = Message.model_validate(message)
    assert parsed.model_dump(exclude_unset=True) == message


def test_other_bodies_pass_and_the_sdk_reads_them() -> None:
    validate_error(error_body("not_found_error", "model: x"))
    validate_error({"type": "error", "error": {"type": "api_error", "message": "boom"}})
    validate_count_tokens({"input_tokens": 12})
    MessageTokensCount.model_validate({"input_tokens": 12})
    validate_model_list(MODEL_LIST)
    assert ModelInfo.model_validate(MODEL_LIST["data"][0]).id == "sim-echo"


def test_parse_sse_reads_the_frames_the_capture_server_writes() -> None:
    events = as_events(text_answer("Hi"), MODEL, 1)
    body = b"".join(sse_frame(event) for event in events)
    assert parse_sse(b": comment\n\n" + body) == named(events)
    with pytest.raises(AssertionError, match="data is not JSON"):
        parse_sse("event: ping\ndata: {\n\n")
    with pytest.raises(AssertionError, match="exactly one event"):
        parse_sse('data: {"type": "ping"}\n\n')


# --------------------------------------------------------------------------- broken samples


GOOD_MESSAGE = as_message(tool_answer("Bash", {"command": "ls"}), MODEL, 3)
BROKEN_MESSAGES = {
    "no id": lambda m: m.pop("id"),
    "type not message": lambda m: m.update(type="msg"),
    "role user": lambda m: m.update(role="user"),
    "unknown stop_reason": lambda m: m.update(stop_reason="done"),
    "null stop_reason": lambda m: m.update(stop_reason=None),
    "no stop_sequence": lambda m: m.pop("stop_sequence"),
    "unknown key": lambda m: m.update(extra=1),
    "unknown block type": lambda m: m["content"].append({"type": "image", "source": {}}),
    "tool_use without input": lambda m: m["content"][0].pop("input"),
    "tool_use input not an object": lambda m: m["content"][0].update(input="ls"),
    "text block with a number": lambda m: m["content"].append({"type": "text", "text": 3}),
    "thinking without signature": lambda m: m["content"].append(
        {"type": "thinking", "thinking": "x"}
    ),
    "usage without output_tokens": lambda m: m["usage"].pop("output_tokens"),
    "negative tokens": lambda m: m["usage"].update(input_tokens=-1),
    "unknown usage key": lambda m: m["usage"].update(total_tokens=4),
    "unknown service tier": lambda m: m["usage"].update(service_tier="gold"),
}


@pytest.mark.parametrize("case", sorted(BROKEN_MESSAGES))
def test_broken_messages_fail(case: str) -> None:
    with pytest.raises(AssertionError, match="not a valid Message"):
        validate_message(broken(GOOD_MESSAGE, BROKEN_MESSAGES[case]))


START: dict[str, Any] = as_events(text_answer("x"), MODEL, 1)[0]
BROKEN_EVENTS: dict[str, tuple[str, Any]] = {
    "name differs from type": ("message_stop", {"type": "ping"}),
    "unknown event": ("message_end", {"type": "message_end"}),
    "data not an object": ("ping", ["ping"]),
    "message_start with content": (
        "message_start",
        broken(START, lambda e: e["message"]["content"].append({"type": "text", "text": "x"})),
    ),
    "message_start with a stop_reason": (
        "message_start",
        broken(START, lambda e: e["message"].update(stop_reason="end_turn")),
    ),
    "unknown delta type": (
        "content_block_delta",
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "json_delta", "partial_json": "{"},
        },
    ),
    "delta without its text": (
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta"}},
    ),
    "negative index": ("content_block_stop", {"type": "content_block_stop", "index": -1}),
    "block start without block": (
        "content_block_start",
        {"type": "content_block_start", "index": 0},
    ),
    "message_delta with null stop_reason": (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": None, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
    ),
    "message_delta without usage": (
        "message_delta",
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}},
    ),
    "ping with a key": ("ping", {"type": "ping", "n": 1}),
    "error with an unknown type": (
        "error",
        {"type": "error", "error": {"type": "bad_error", "message": "x"}},
    ),
}


@pytest.mark.parametrize("case", sorted(BROKEN_EVENTS))
def test_broken_events_fail(case: str) -> None:
    name, data = BROKEN_EVENTS[case]
    with pytest.raises(AssertionError):
        validate_event(name, data)


@pytest.mark.parametrize(
    "body",
    [
        {"type": "error", "error": {"type": "model_error", "message": "x"}},
        {"type": "error", "error": {"type": "api_error"}},
        {"type": "failure", "error": {"type": "api_error", "message": "x"}},
        {"error": {"type": "api_error", "message": "x"}},
        {"type": "error", "error": {"type": "api_error", "message": "x", "code": 1}},
        {"type": "error", "error": "api_error"},
    ],
)
def test_broken_error_bodies_fail(body: dict[str, Any]) -> None:
    with pytest.raises(AssertionError, match="not a valid Error"):
        validate_error(body)


def test_broken_count_tokens_and_model_lists_fail() -> None:
    for body in ({}, {"input_tokens": "12"}, {"input_tokens": 1, "output_tokens": 1}):
        with pytest.raises(AssertionError):
            validate_count_tokens(body)
    for change in (
        lambda m: m["data"][0].update(type="models"),
        lambda m: m["data"][0].pop("display_name"),
        lambda m: m["data"][0].update(created_at="yesterday"),
        lambda m: m["data"][1].update(lifecycle="beta"),
        lambda m: m["data"][0].pop("lifecycle"),
        lambda m: m["data"][0].update(created_at="2026-01-01"),
        lambda m: m["data"][0].update(created_at="2026-13-01T00:00:00Z"),
        lambda m: m.pop("has_more"),
    ):
        with pytest.raises(AssertionError):
            validate_model_list(broken(MODEL_LIST, change))
