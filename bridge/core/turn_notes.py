"""Instructions about this one answer go after the history, never inside it.

Providers cache a prompt by its prefix, and Copilot bills cached input for less. When an agent's
conversation grows by appended turns, what the bridge sends for turn N must be a prefix of
what it sends for turn N+1. An instruction that holds for one request only (answer in JSON,
call one of the tools) placed first would change the start of every prompt it comes and goes
in; so it comes last, in a user message of its own after the client's messages, opened by a
line that says it is about this answer (the model reads it as the newest word, which it is).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from bridge.core.parts import ChatMessage, MessagePart, TextPart
from bridge.core.savings_off import off

HEADER = "Instructions for this answer:"


def with_turn_notes(messages: list[ChatMessage], notes: Sequence[str]) -> list[ChatMessage]:
    """The messages, then one user message with the notes (the messages alone when none)."""
    if not notes:
        return messages
    parts: list[MessagePart] = [TextPart(value=HEADER), *(TextPart(value=n) for n in notes)]
    if off("turn_notes_last"):  # a measurement only (savings_off.py)
        return [ChatMessage(role="user", content=parts), *messages]
    return [*messages, ChatMessage(role="user", content=parts)]


def is_turn_note(message: ChatMessage) -> bool:
    """Whether `message` is the bridge's note about this answer (not the client's)."""
    first = message.content[0] if message.content else None
    return message.role == "user" and isinstance(first, TextPart) and first.value == HEADER


def without_turn_note(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The client's conversation as the bridge sent it, without its closing note; also where
    the note was merged into the user message before it, or its parts split into messages of
    their own (as Copilot renders user messages)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role != "user":
            break
        for cut in range(len(message.content) - 1, -1, -1):
            part = message.content[cut]
            if isinstance(part, TextPart) and part.value == HEADER:
                kept = message.content[:cut]
                before = messages[:index]
                return [*before, replace(message, content=kept)] if kept else before
    return messages
