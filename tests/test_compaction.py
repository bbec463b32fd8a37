"""Unit tests of compaction: the item encoding, the summary prompt, the result, the read-back."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from typing import Any

import pytest
from spec_validation import validate_compaction

from bridge.core.backend import ChatMessage, DataPart, TextPart, ToolCallPart, ToolResultPart
from bridge.core.errors import ApiError
from bridge.responses import compaction_codec
from bridge.responses.compaction import (
    INSTRUCTION,
    compaction_result,
    kept_user_messages,
    parse_compact_request,
    summary_request,
    summary_text,
    transcript,
)
from bridge.responses.compaction_codec import CompactionDecodeError, decode_summary, encode_summary
from bridge.responses.convert_input import COMPACTION_PREAMBLE, to_chat_messages
from bridge.responses.request import MessageItem, parse_create_request
from bridge.responses.response_object import usage_object

# --------------------------------------------------------------------------- the encoding


@pytest.mark.parametrize("summary", ["", "The user is Ada.", "naïve — 日本語 🐍\n" * 500])
def test_round_trip(summary: str) -> None:
    value = encode_summary(summary)
    assert value.startswith("amcmp1.")
    assert summary[:10] not in value or not summary  # not readable as plain text
    assert decode_summary(value) == summary


def test_compresses_long_summaries() -> None:
    summary = "The same sentence again. " * 1000
    assert len(encode_summary(summary)) < len(summary) / 10


def _flip(value: str, index: int) -> str:
    char = "A" if value[index] != "A" else "B"
    return value[:index] + char + value[index + 1 :]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("gAAAAABpM0Yj-abc=", "not made by Maestro Bridge"),
        ("", "not made by Maestro Bridge"),
        ("amcmp1", "not made by Maestro Bridge"),
        ("amcmp2.AAAA", "format version '2'"),
        ("amcmp1.", "damaged"),
        ("amcmp1.%%%%", "damaged"),
    ],
)
def test_foreign_or_broken_values(value: str, reason: str) -> None:
    with pytest.raises(CompactionDecodeError, match=reason):
        decode_summary(value)


def test_any_damage_is_detected() -> None:
    value = encode_summary("The user is Ada and wants tests.")
    for index in range(len("amcmp1."), len(value), 3):
        with pytest.raises(CompactionDecodeError):
            decode_summary(_flip(value, index))
    with pytest.raises(CompactionDecodeError):
        decode_summary(value[:-4])


def _wrap(payload: bytes) -> str:
    checksum = hashlib.sha256(payload).digest()[:8]
    return "amcmp1." + base64.urlsafe_b64encode(checksum + payload).decode().rstrip("=")


def test_well_formed_but_wrong_content() -> None:
    for data in (b"[1]", b'{"summary": 5}', b"not json", b'{"other": "x"}'):
        with pytest.raises(CompactionDecodeError, match="damaged"):
            decode_summary(_wrap(zlib.compress(data)))


def test_inflation_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction_codec, "MAX_DECODED_BYTES", 1000)
    bomb = _wrap(zlib.compress(json.dumps({"summary": "x" * 100_000}).encode()))
    with pytest.raises(CompactionDecodeError, match="too large"):
        decode_summary(bomb)


# --------------------------------------------------------------------------- read back


def test_compaction_item_becomes_context_in_place() -> None:
    item = {"type": "compaction", "id": "cmp_1", "encrypted_content": encode_summary("Ada.")}
    request = parse_create_request(
        {
            "model": "m",
            "instructions": "Be brief.",
            "input": [{"role": "user", "content": "first"}, item, {"role": "user", "content": "q"}],
        }
    )
    messages = to_chat_messages(request)
    texts = [m.content[0].value for m in messages if isinstance(m.content[0], TextPart)]
    assert texts == ["Be brief.", "first", f"{COMPACTION_PREAMBLE}\n\nAda.", "q"]
    assert all(m.role == "user" for m in messages)


def test_unreadable_compaction_item_is_a_400() -> None:
    body = {
        "model": "m",
        "input": [
            {"role": "user", "content": "x"},
            {"type": "compaction", "encrypted_content": "gAAA"},
        ],
    }
    with pytest.raises(ApiError) as caught:
        parse_create_request(body)
    error = caught.value
    assert (error.status, error.param, error.code) == (
        400,
        "input[1].encrypted_content",
        "invalid_value",
    )
    assert "not made by Maestro Bridge" in error.message
    assert "Value error" not in error.message


def test_compaction_item_needs_its_content() -> None:
    with pytest.raises(ApiError) as caught:
        parse_create_request({"model": "m", "input": [{"type": "compaction"}]})
    assert caught.value.param == "input[0].encrypted_content"


# --------------------------------------------------------------------------- the request


def test_compact_request_needs_a_model() -> None:
    for body in ({"input": "x"}, {"model": "", "input": "x"}):
        with pytest.raises(ApiError) as caught:
            parse_compact_request(body)
        assert (caught.value.status, caught.value.param) == (400, "model")


def test_compact_request_rejects_state_and_non_objects() -> None:
    with pytest.raises(ApiError) as caught:
        parse_compact_request({"model": "m", "input": "x", "previous_response_id": "resp_1"})
    assert caught.value.code == "unsupported_parameter"
    with pytest.raises(ApiError) as caught:
        parse_compact_request(["model"])
    assert caught.value.code == "invalid_json"
    with pytest.raises(ApiError) as caught:
        parse_compact_request({"model": "m"})
    assert caught.value.param == "input"


def test_compact_request_ignores_what_compaction_does_not_use() -> None:
    request = parse_compact_request(
        {"model": "m", "input": "x", "instructions": "sys", "tools": [{"type": "web_search"}]}
    )
    assert (request.model, request.input, request.instructions, request.tools) == (
        "m",
        "x",
        "sys",
        None,
    )


def test_transcript_labels_every_kind_of_part() -> None:
    messages = [
        ChatMessage(
            role="user",
            content=[TextPart(value="List files."), DataPart(mimeType="image/png", data="AA")],
        ),
        ChatMessage(
            role="assistant",
            content=[
                TextPart(value="Sure."),
                ToolCallPart(callId="c1", name="ls", input={"dir": "."}),
            ],
        ),
        ChatMessage(
            role="user", content=[ToolResultPart(callId="c1", content=[TextPart(value="a.py")])]
        ),
    ]
    assert transcript("Be terse.", messages) == (
        "System instructions:\nBe terse.\n\n"
        "User:\nList files.\n[image/png data]\n\n"
        'Assistant:\nSure.\n[called tool ls (call c1) with {"dir": "."}]\n\n'
        "User:\n[result of call c1: a.py]"
    )


def test_summary_request_is_one_user_message_with_the_transcript() -> None:
    request = parse_compact_request(
        {
            "model": "sim-echo",
            "instructions": "Be terse.",
            "input": [
                {"role": "user", "content": "Hi, I am Ada."},
                {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
            ],
        }
    )
    ask = summary_request(request)
    assert ask.model == "sim-echo" and ask.instructions is None and ask.tools is None
    assert isinstance(ask.input, list) and len(ask.input) == 1
    [item] = ask.input
    assert isinstance(item, MessageItem) and item.role == "user" and isinstance(item.content, str)
    assert item.content.startswith(INSTRUCTION)
    assert "System instructions:\nBe terse." in item.content
    assert "Hi, I am Ada." in item.content and "[result of call c1: a.py]" in item.content


def test_nothing_to_compact_is_a_400() -> None:
    for text_input in ([], [{"type": "reasoning", "summary": []}]):
        request = parse_compact_request({"model": "m", "input": text_input})
        with pytest.raises(ApiError) as caught:
            summary_request(request)
        assert caught.value.param == "input"


def test_an_earlier_compaction_is_part_of_the_transcript() -> None:
    old = {"type": "compaction", "encrypted_content": encode_summary("Earlier: Ada.")}
    request = parse_compact_request(
        {"model": "m", "input": [old, {"role": "user", "content": "x"}]}
    )
    asked = summary_request(request).input
    assert isinstance(asked, list)
    [item] = asked
    assert isinstance(item, MessageItem) and isinstance(item.content, str)
    assert "Earlier: Ada." in item.content


# --------------------------------------------------------------------------- the result


def test_kept_user_messages() -> None:
    image = "data:image/png;base64,AAAA"
    request = parse_compact_request(
        {
            "model": "m",
            "input": [
                {"role": "developer", "content": "rules"},
                {"role": "user", "content": "plain"},
                {"role": "assistant", "content": "answer"},
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "look"},
                        {"type": "input_image", "image_url": image},
                        {"type": "input_file", "file_id": "f1"},
                    ],
                },
                {"type": "compaction", "encrypted_content": encode_summary("old")},
                {"role": "user", "content": [{"type": "input_file", "file_id": "f2"}]},
            ],
        }
    )
    kept = kept_user_messages(request)
    assert [item["content"] for item in kept] == [
        [{"type": "input_text", "text": "plain"}],
        [
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "image_url": image, "detail": "auto"},
        ],
    ]
    assert all(item["id"].startswith("msg_AM-") for item in kept)
    assert len({item["id"] for item in kept}) == 2


def test_kept_user_messages_of_text_input() -> None:
    [item] = kept_user_messages(parse_compact_request({"model": "m", "input": "just this"}))
    assert item["content"] == [{"type": "input_text", "text": "just this"}]


def test_summary_text_is_the_message_text_only() -> None:
    response: dict[str, Any] = {
        "output": [
            {
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "hm"}],
            },
            {"type": "message", "content": [{"type": "output_text", "text": "Sum"}]},
            {"type": "message", "content": [{"type": "output_text", "text": "mary"}]},
        ]
    }
    assert summary_text(response) == "Summary"


def test_result_matches_the_spec() -> None:
    user = {
        "type": "message",
        "id": "msg_AM-1",
        "status": "completed",
        "role": "user",
        "content": [{"type": "input_text", "text": "hi"}],
    }
    result = compaction_result([user], "The user said hi.", usage_object(30, 7))
    validate_compaction(result)
    assert result["object"] == "response.compaction"
    assert result["id"].startswith("resp_AM-")
    assert result["output"][0] == user
    item = result["output"][-1]
    assert item["type"] == "compaction" and item["id"].startswith("cmp_AM-")
    assert decode_summary(item["encrypted_content"]) == "The user said hi."
    assert result["usage"]["total_tokens"] == 37


def test_the_compaction_schema_check_is_not_vacuous() -> None:
    good = compaction_result([], "s", usage_object(1, 1))
    item = good["output"][0]
    for broken in (
        {**good, "object": "response"},
        {k: v for k, v in good.items() if k != "usage"},
        {**good, "output": [{k: v for k, v in item.items() if k != "encrypted_content"}]},
    ):
        with pytest.raises(AssertionError):
            validate_compaction(broken)
