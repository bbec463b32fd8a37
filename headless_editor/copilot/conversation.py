"""The conversation as Copilot renders it for the upstream, and what the upstream refuses.

Rendering (languageModelAccessPrompt.tsx): an assistant message keeps its first text part and
its tool calls; every part of a user message becomes its own message in order (a tool result
a tool message, an image a user message, a text a user message); other parts are dropped.
Copilot does not check that tool calls and results pair up (its validateRequest filters the
wrong part type, so the check never fires); the rendered conversation goes on as it is.
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
from headless_editor.message_memo import MessageMemo

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
        rendered.extend(_rendered_message(message))
    return rendered


def _render_message(message: ChatMessage) -> tuple[Rendered, ...]:
    """One message's upstream messages (none for an empty assistant turn: its neighbours
    meet). Shared by every request that resends the message: never changed once made."""
    if message.role == "assistant":
        first = next((p for p in message.content if isinstance(p, TextPart)), None)
        calls = [p for p in message.content if isinstance(p, ToolCallPart)]
        text: list[MessagePart] = [first] if first is not None and first.value else []
        return (Rendered("assistant", text, calls),) if text or calls else ()
    rendered: list[Rendered] = []
    for part in message.content:
        if isinstance(part, ToolResultPart):
            kept = [p for p in part.content if _kept_in_result(p)]
            result = ToolResultPart(callId=part.callId, content=kept)
            rendered.append(Rendered("tool", [result], call_id=part.callId))
        elif _kept_in_user(part):
            rendered.append(Rendered("user", [part]))
    return tuple(rendered)


# An agent resends its history every turn: each message is rendered once (message_memo.py).
_rendered_message = MessageMemo(_render_message)


def _kept_in_user(part: MessagePart) -> bool:
    # Only the five image types count as images; empty text is dropped.
    if isinstance(part, DataPart):
        return is_image(part.mimeType)
    return isinstance(part, TextPart) and bool(part.value)


def _kept_in_result(part: TextPart | DataPart) -> bool:
    return isinstance(part, TextPart) or is_image(part.mimeType)


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
