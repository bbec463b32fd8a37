"""Instructions about one answer close the request (bridge/core/turn_notes.py), and the
simulated model finds the client's last word before them in any form Copilot renders."""

from __future__ import annotations

from bridge.core.backend import ChatMessage, TextPart, ToolResultPart
from bridge.core.turn_notes import (
    HEADER,
    is_turn_note,
    with_turn_notes,
    without_turn_note,
)


def _user(*texts: str) -> ChatMessage:
    return ChatMessage(role="user", content=[TextPart(value=t) for t in texts])


HISTORY = [
    _user("system text"),
    ChatMessage(role="assistant", content=[TextPart(value="ok")]),
    ChatMessage(
        role="user", content=[ToolResultPart(callId="c", content=[TextPart(value="done")])]
    ),
]


def test_notes_come_after_the_history_which_stays_as_it_was() -> None:
    noted = with_turn_notes(list(HISTORY), ["Answer in JSON.", "Call a tool."])
    assert noted[: len(HISTORY)] == HISTORY
    assert noted[-1] == _user(HEADER, "Answer in JSON.", "Call a tool.")
    assert is_turn_note(noted[-1]) and not any(is_turn_note(m) for m in HISTORY)
    assert without_turn_note(noted) == HISTORY
    assert with_turn_notes(list(HISTORY), []) == HISTORY


def test_the_note_is_found_merged_or_split_as_copilot_renders_it() -> None:
    merged = [*HISTORY[:2], _user("last words", HEADER, "Answer in JSON.")]
    assert without_turn_note(merged) == [*HISTORY[:2], _user("last words")]
    split = [*HISTORY[:2], _user("last words"), _user(HEADER), _user("Answer in JSON.")]
    assert without_turn_note(split) == [*HISTORY[:2], _user("last words")]
    # Not past the last assistant turn: a header there is the history's, not this answer's.
    older = [_user(HEADER, "old"), ChatMessage(role="assistant", content=[TextPart(value="x")])]
    assert without_turn_note(older) == older
