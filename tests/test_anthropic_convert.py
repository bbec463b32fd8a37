"""The Messages request -> the editor's chat messages: system forms, each block kind, history."""

from __future__ import annotations

import base64
from typing import Any

from bridge.anthropic.blocks import TOOL_ERROR_LABEL
from bridge.anthropic.convert import SYSTEM_LABEL, editor_messages, to_chat_messages
from bridge.anthropic.plan import parse_messages_request
from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
PNG_B64 = base64.b64encode(PNG).decode("ascii")
BILLING = "x-anthropic-billing-header: cc_version=2.1.330.df9; cc_entrypoint=sdk-cli;"


def body(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"model": "claude-opus-5-5", "max_tokens": 100, "messages": messages, **extra}


def convert(messages: list[Any], **extra: Any) -> list[ChatMessage]:
    return to_chat_messages(parse_messages_request(body(messages, **extra)))


def user(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="user", content=list(parts))


def assistant(*parts: MessagePart) -> ChatMessage:
    return ChatMessage(role="assistant", content=list(parts))


def text(value: str) -> TextPart:
    return TextPart(value=value)


def blocks(*items: dict[str, Any], role: str = "user") -> list[dict[str, Any]]:
    return [{"role": role, "content": list(items)}]


def only_parts(messages: list[ChatMessage]) -> list[MessagePart]:
    assert len(messages) == 1, messages
    return messages[0].content


# System text


def test_a_system_string_goes_first_as_a_user_message() -> None:
    got = convert([{"role": "user", "content": "hi"}], system="Be brief.")
    assert got == [user(text("Be brief.")), user(text("hi"))]


def test_system_blocks_keep_their_text_and_lose_cache_control() -> None:
    system = [
        {"type": "text", "text": "One.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Two."},
    ]
    got = convert([{"role": "user", "content": "hi"}], system=system)
    assert got[0] == user(text("One."), text("Two."))


def test_the_billing_header_block_is_dropped() -> None:
    system = [{"type": "text", "text": BILLING}, {"type": "text", "text": "You are an agent."}]
    got = convert([{"role": "user", "content": "hi"}], system=system)
    assert got[0] == user(text("You are an agent."))
    assert all("x-anthropic-billing-header" not in str(m.content) for m in got)


def test_the_billing_header_line_of_a_system_string_is_dropped() -> None:
    got = convert([{"role": "user", "content": "hi"}], system=f"{BILLING}\nYou are an agent.")
    assert got[0] == user(text("You are an agent."))


def test_a_billing_header_later_than_first_is_kept_as_text() -> None:
    # Only Claude Code's own first line is a header; a later one is what the client wrote.
    system = [{"type": "text", "text": "Intro."}, {"type": "text", "text": BILLING}]
    got = convert([{"role": "user", "content": "hi"}], system=system)
    assert got[0] == user(text("Intro."), text(BILLING))


def test_system_messages_before_the_first_answer_join_the_system_text() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": [{"type": "text", "text": "# Environment"}]},
    ]
    got = convert(messages, system="Be brief.")
    assert got == [user(text("Be brief.")), user(text("# Environment")), user(text("hi"))]


def test_a_later_system_message_stays_in_place_labelled() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": "The user changed the mode."},
        {"role": "user", "content": "go on"},
    ]
    got = convert(messages)
    assert got == [
        user(text("hi")),
        assistant(text("hello")),
        user(text(SYSTEM_LABEL), text("The user changed the mode.")),
        user(text("go on")),
    ]


# Blocks


def test_text_blocks_and_strings() -> None:
    got = convert(blocks({"type": "text", "text": "a"}, {"type": "text", "text": ""}))
    assert only_parts(got) == [text("a")]


def test_a_base64_image_becomes_image_data_typed_by_its_bytes() -> None:
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/jpeg", "data": PNG_B64},
    }
    got = only_parts(convert(blocks(image)))
    assert got == [DataPart(mimeType="image/png", data=PNG_B64)]


def test_an_image_url_becomes_a_note() -> None:
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}
    [note] = only_parts(convert(blocks(image)))
    assert isinstance(note, TextPart)
    assert "https://example.com/cat.png" in note.value and "not included" in note.value


def test_an_image_that_is_not_an_image_becomes_a_note() -> None:
    data = base64.b64encode(b"hello").decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    [note] = only_parts(convert(blocks(image)))
    assert isinstance(note, TextPart) and "not included" in note.value


def test_thinking_blocks_are_dropped() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": ""},
                {"type": "redacted_thinking", "data": "xyz"},
                {"type": "text", "text": "hello"},
            ],
        },
    ]
    assert convert(messages) == [user(text("hi")), assistant(text("hello"))]


def test_a_text_document_gives_its_text_under_its_title() -> None:
    doc = {
        "type": "document",
        "title": "notes.txt",
        "source": {"type": "text", "media_type": "text/plain", "data": "line one"},
        "cache_control": {"type": "ephemeral"},
    }
    [part] = only_parts(convert(blocks(doc)))
    assert part == text("[document notes.txt:]\nline one")


def test_a_base64_text_document_is_decoded() -> None:
    data = base64.b64encode(b"plain words").decode()
    doc = {
        "type": "document",
        "title": "a.txt",
        "source": {"type": "base64", "media_type": "text/plain", "data": data},
    }
    parts = only_parts(convert(blocks(doc)))
    assert any(
        isinstance(p, TextPart) and "plain words" in p.value and "a.txt" in p.value for p in parts
    )


def test_a_pdf_document_becomes_a_note() -> None:
    data = base64.b64encode(b"%PDF-1.7\n\x00\x01binary").decode()
    doc = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
    }
    [note] = only_parts(convert(blocks(doc)))
    assert isinstance(note, TextPart) and "not included" in note.value


def test_a_document_url_becomes_a_note() -> None:
    doc = {
        "type": "document",
        "title": "Spec",
        "source": {"type": "url", "url": "https://example.com/a.pdf"},
    }
    [note] = only_parts(convert(blocks(doc)))
    assert isinstance(note, TextPart)
    assert "Spec" in note.value and "https://example.com/a.pdf" in note.value


def test_an_unknown_block_becomes_a_note() -> None:
    got = only_parts(
        convert(blocks({"type": "hologram", "depth": 3}, {"type": "text", "text": "x"}))
    )
    assert got == [text("[content of type 'hologram' not included]"), text("x")]


# Tool calls and results


def tool_turn(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "list files"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Running it."},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
            ],
        },
        {"role": "user", "content": [result]},
    ]


def test_a_tool_call_and_its_string_result() -> None:
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "a.txt",
        "is_error": False,
        "cache_control": {"type": "ephemeral"},
    }
    got = editor_messages(parse_messages_request(body(tool_turn(result))))
    assert got == [
        user(text("list files")),
        assistant(
            text("Running it."),
            ToolCallPart(callId="toolu_1", name="Bash", input={"command": "ls"}),
        ),
        user(ToolResultPart(callId="toolu_1", content=[text("a.txt")])),
    ]


def test_a_tool_result_of_text_and_image_blocks() -> None:
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [
            {"type": "text", "text": "screenshot:"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
            },
        ],
    }
    got = editor_messages(parse_messages_request(body(tool_turn(result))))
    assert got[-1] == user(
        ToolResultPart(
            callId="toolu_1",
            content=[text("screenshot:"), DataPart(mimeType="image/png", data=PNG_B64)],
        )
    )


def test_an_error_result_says_so() -> None:
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "no such dir",
        "is_error": True,
    }
    got = editor_messages(parse_messages_request(body(tool_turn(result))))
    assert got[-1] == user(
        ToolResultPart(callId="toolu_1", content=[text(TOOL_ERROR_LABEL), text("no such dir")])
    )


def test_an_empty_result_is_still_a_result() -> None:
    result = {"type": "tool_result", "tool_use_id": "toolu_1"}
    got = editor_messages(parse_messages_request(body(tool_turn(result))))
    assert got[-1] == user(ToolResultPart(callId="toolu_1", content=[text("")]))


def test_a_result_without_its_call_becomes_labelled_text() -> None:
    messages = [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "late"}],
        },
        {"role": "user", "content": "and now?"},
    ]
    got = editor_messages(parse_messages_request(body(messages)))
    assert not any(isinstance(p, (ToolCallPart, ToolResultPart)) for m in got for p in m.content)
    assert "toolu_9" in str(got) and "late" in str(got)


def test_a_call_without_its_result_becomes_labelled_text() -> None:
    messages = tool_turn({"type": "text", "text": "never mind"})
    got = editor_messages(parse_messages_request(body(messages)))
    assert not any(isinstance(p, (ToolCallPart, ToolResultPart)) for m in got for p in m.content)
    assert "toolu_1" in str(got) and "Bash" in str(got)


def test_calls_split_over_two_assistant_messages_pair_with_their_results() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "a", "name": "Read", "input": {}}],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "b", "name": "Read", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "A"},
                {"type": "tool_result", "tool_use_id": "b", "content": "B"},
            ],
        },
    ]
    got = editor_messages(parse_messages_request(body(messages)))
    assert got[1] == assistant(
        ToolCallPart(callId="a", name="Read", input={}),
        ToolCallPart(callId="b", name="Read", input={}),
    )
    assert [p.callId for p in got[2].content if isinstance(p, ToolResultPart)] == ["a", "b"]


def test_a_tool_use_in_a_user_message_is_text() -> None:
    use = {"type": "tool_use", "id": "x", "name": "Bash", "input": {"command": "ls"}}
    [part] = only_parts(convert(blocks(use)))
    assert isinstance(part, TextPart) and "Bash" in part.value
