"""A provider's sealed thought (Copilot's thinking part with `encrypted_content`) through each
dialect and back: out as an Anthropic signature, a Responses item's `encrypted_content`, a
Gemini `thoughtSignature`; back from the client's next request as the same thinking part.
The end-to-end proof through the real Copilot is tests/test_e2e_copilot_thinking.py."""

from __future__ import annotations

from typing import Any

import msgspec

from bridge.anthropic.events import MessageEventBuilder, fold_message
from bridge.anthropic.plan import parse_messages_request, plan_messages
from bridge.core.backend import ModelInfo, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts
from bridge.core.thinking_tokens import from_signature, from_token, signature_of, token_of
from bridge.gemini.chunks import ChunkBuilder, fold
from bridge.gemini.convert import editor_messages as gemini_messages
from bridge.gemini.wire import Content
from bridge.responses.convert_input import editor_messages as responses_messages
from bridge.responses.events import ResponseEventBuilder
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object

CLAUDE_SEAL = {"encrypted_content": "EqQBCkYIBxgCKkB", "vscode_thinking_origin_api": "messages"}
GPT_SEAL = {"encrypted_content": "gAAAAABo-secret", "vscode_thinking_origin_api": "responses"}
MODEL = ModelInfo(id="m", name="m", vendor="copilot", family="claude-sonnet-4.5")


def test_a_claude_signature_goes_out_verbatim_and_any_other_seal_as_a_token() -> None:
    claude = ThinkingPart(value="", id="thinking_0", metadata=CLAUDE_SEAL)
    assert signature_of(claude) == "EqQBCkYIBxgCKkB"
    gpt = ThinkingPart(value="", id="rs_1", metadata=GPT_SEAL)
    token = signature_of(gpt)
    assert token.startswith("mbt1.") and token == token_of(gpt)
    assert from_token(token, "thought") == ThinkingPart(
        value="thought", id="rs_1", metadata=GPT_SEAL
    )
    assert from_signature(token, "t", 0) == ThinkingPart(value="t", id="rs_1", metadata=GPT_SEAL)


def test_made_up_empty_and_broken_seals_give_nothing_back() -> None:
    assert from_signature("AM-abc", "t", 0) is None
    assert from_signature("", "t", 0) is None
    for broken in ("mbt1.", "mbt1.!!!", "mbt1.bnVsbA", "mbt1.eyJpIjoxfQ"):  # null, {"i": 1}
        assert from_token(broken, "t") is None
    assert from_token("gAAAA-not-ours", "t") is None


def _anthropic(parts: list[Any], thinking: bool = True) -> dict[str, Any]:
    builder = MessageEventBuilder("m", thinking)
    events = builder.add(parts) + builder.finish("end_turn", None, UsageCounts(5, 3))
    return fold_message(events)


def test_anthropic_thinking_block_carries_claudes_signature() -> None:
    sealed = ThinkingPart(value="", id="thinking_0", metadata=CLAUDE_SEAL)
    thought = ThinkingPart(value="Let me see.", id="thinking_0")
    message = _anthropic([thought, sealed, TextPart(value="Done.")])
    assert message["content"] == [
        {"type": "thinking", "thinking": "Let me see.", "signature": "EqQBCkYIBxgCKkB"},
        {"type": "text", "text": "Done."},
    ]
    # Unsealed thinking keeps a made-up signature, which never goes back.
    unsealed = _anthropic([thought, TextPart(value="Done.")])["content"][0]
    assert unsealed["signature"].startswith("AM-")
    # Not asked for: neither shown nor signed.
    assert _anthropic([thought, sealed, TextPart(value="x")], thinking=False)["content"] == [
        {"type": "text", "text": "x"}
    ]


def test_a_seal_with_no_text_is_claudes_redacted_thinking() -> None:
    sealed = ThinkingPart(value="", id="thinking_0", metadata=CLAUDE_SEAL)
    content = _anthropic([sealed, TextPart(value="x")])["content"]
    assert content[0] == {"type": "redacted_thinking", "data": "EqQBCkYIBxgCKkB"}


def test_anthropic_thinking_goes_back_in_the_assistant_turn() -> None:
    body = {
        "model": "m",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "A", "signature": "EqQBCkYIBxgCKkB"},
                    {"type": "thinking", "thinking": "B", "signature": "AM-made-up"},
                    {"type": "redacted_thinking", "data": "xyz"},
                    {"type": "text", "text": "ok"},
                ],
            },
            {"role": "user", "content": "more"},
        ],
    }
    chat = plan_messages(parse_messages_request(body), MODEL).chat
    assert chat.messages[1].content == [
        ThinkingPart(value="A", id="thinking_0", metadata=CLAUDE_SEAL),
        TextPart(value="ok"),
    ]


def _responses(parts: list[Any], include: bool) -> list[dict[str, Any]]:
    request: dict[str, Any] = {"model": "m", "input": "hi"}
    if include:
        request["include"] = ["reasoning.encrypted_content"]
    parsed = parse_create_request(request)
    builder = ResponseEventBuilder(new_response(parsed, "resp_1", [], "auto"), {}, True, include)
    builder.start()
    builder.add(parts)
    builder.complete(usage_object(3, 5))
    output: list[dict[str, Any]] = builder.response["output"]
    return output


def test_a_reasoning_item_carries_the_seal_only_when_included() -> None:
    parts = [
        ThinkingPart(value="Plan.", id="rs_1"),
        ThinkingPart(value="", id="rs_1", metadata=GPT_SEAL),
        TextPart(value="Answer."),
    ]
    items = _responses(parts, include=True)
    assert [i["type"] for i in items] == ["reasoning", "message"]
    token = items[0]["encrypted_content"]
    assert from_token(token, "Plan.") == ThinkingPart(value="Plan.", id="rs_1", metadata=GPT_SEAL)
    assert "encrypted_content" not in _responses(parts, include=False)[0]
    # Given back, it opens the assistant turn it belongs to.
    request = {
        "model": "m",
        "input": [
            {"role": "user", "content": "hi"},
            items[0],
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "ok"},
            {"type": "reasoning", "summary": [], "encrypted_content": "not-ours"},
        ],
    }
    messages = responses_messages(parse_create_request(request))
    assert messages[1].content == [
        ThinkingPart(value="Plan.", id="rs_1", metadata=GPT_SEAL),
        ToolCallPart(callId="c1", name="f", input={}),
    ]


def test_a_gemini_call_carries_the_thought_before_it_and_gives_it_back() -> None:
    builder = ChunkBuilder("m")
    sealed = ThinkingPart(value="", id="op_1", metadata={"encrypted_content": "op_1"})
    chunks = builder.add([sealed, ToolCallPart(callId="c1", name="f", input={"a": 1})])
    chunks += builder.finish("STOP", UsageCounts(5, 3))
    parts = fold(chunks)["candidates"][0]["content"]["parts"]
    assert parts[0]["functionCall"]["name"] == "f"
    signature = parts[0]["thoughtSignature"]
    contents = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": parts},
        {
            "role": "user",
            "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {}}}],
        },
    ]
    messages = gemini_messages(
        msgspec.json.decode(msgspec.json.encode(contents), type=list[Content])
    )
    assert messages[1].content[0] == ThinkingPart(
        value="", id="op_1", metadata={"encrypted_content": "op_1"}
    )
    assert signature.startswith("mbt1.")
