"""The conversation as Copilot renders it for the upstream, and what the upstream refuses.

Rendering (languageModelAccessPrompt.tsx): an assistant message keeps its first text part and
its tool calls; every part of a user message becomes its own message in order (a tool result
a tool message, an image a user message, a text a user message); other parts are dropped.
The upstream then wants the tool messages answering an assistant's calls right after it, and
no tool message without its call. Copilot's own pairing check never fires (it filters the
wrong part type), so these are the upstream's refusals (Agent Maestro issues 112, 143, 245).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from headless_editor.copilot.images import is_image

CONTINUE = "Please continue."  # appended after a trailing assistant turn (messagesApi.ts)


@dataclass
class Rendered:
    """One upstream message: user text or image, an assistant turn, or a tool message."""

    role: str  # "user", "assistant" or "tool"
    parts: list[MessagePart] = field(default_factory=list)
    calls: list[ToolCallPart] = field(default_factory=list)
    call_id: str = ""


def render(messages: list[ChatMessage]) -> list[Rendered]:
    rendered: list[Rendered] = []
    for message in messages:
        if message.role == "assistant":
            first = next((p for p in message.content if isinstance(p, TextPart)), None)
            calls = [p for p in message.content if isinstance(p, ToolCallPart)]
            text: list[MessagePart] = [first] if first is not None and first.value else []
            if text or calls:  # an empty turn is dropped, its neighbours meet
                rendered.append(Rendered("assistant", text, calls))
            continue
        for part in message.content:
            if isinstance(part, ToolResultPart):
                kept = [p for p in part.content if _kept_in_result(p)]
                result = ToolResultPart(callId=part.callId, content=kept)
                rendered.append(Rendered("tool", [result], call_id=part.callId))
            elif _kept_in_user(part):
                rendered.append(Rendered("user", [part]))
    return rendered


def _kept_in_user(part: MessagePart) -> bool:
    # Only the five image types count as images; empty text is dropped.
    if isinstance(part, DataPart):
        return is_image(part.mimeType)
    return isinstance(part, TextPart) and bool(part.value)


def _kept_in_result(part: TextPart | DataPart) -> bool:
    return isinstance(part, TextPart) or is_image(part.mimeType)


def pairing_refusal(rendered: list[Rendered], anthropic: bool) -> str | None:
    """The upstream's refusal of calls without results, or results without calls."""
    pending: list[str] = []
    for index, item in enumerate(rendered):
        if item.role == "tool":
            if item.call_id not in pending:
                return _orphan(item.call_id, index, anthropic)
            pending.remove(item.call_id)
            continue
        if pending:
            return _unanswered(pending, index, anthropic)
        if item.role == "assistant":
            pending = [call.callId for call in item.calls]
    return _unanswered(pending, len(rendered), anthropic) if pending else None


def _orphan(call_id: str, index: int, anthropic: bool) -> str:
    if anthropic:
        return (
            f"messages.{index}.content.0: unexpected `tool_use_id` found in `tool_result` "
            f"blocks: {call_id}. Each `tool_result` block must have a corresponding "
            "`tool_use` block in the previous message."
        )
    return f"No tool call found for function call output with call_id {call_id}."


def _unanswered(call_ids: list[str], index: int, anthropic: bool) -> str:
    ids = ", ".join(call_ids)
    if anthropic:
        return (
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {ids}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message."
        )
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
    )


def seen_messages(rendered: list[Rendered]) -> list[ChatMessage]:
    """The rendered conversation back in the editor API's shape: what the model answers."""
    messages: list[ChatMessage] = []
    for item in rendered:
        if item.role == "assistant":
            messages.append(ChatMessage(role="assistant", content=[*item.parts, *item.calls]))
        elif messages and messages[-1].role == "user":
            messages[-1].content.extend(item.parts)
        else:
            messages.append(ChatMessage(role="user", content=list(item.parts)))
    if messages and messages[-1].role == "assistant":
        messages.append(ChatMessage(role="user", content=[TextPart(value=CONTINUE)]))
    return messages
