"""What a simulated reply is made of besides parts (a pause, a failure, the request echoed),
and the text a script's rules match.

Kept free of pydantic (headless_editor/script.py reads scripts with it): the simulated model
needs these for every reply, a script only with `--script` (`serve`'s idle memory,
docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.core.parts import (
    ChatMessage,
    EditorErrorCode,
    MessagePart,
    ResponsePart,
    TextPart,
    ToolResultPart,
)


@dataclass(frozen=True)
class Pause:
    """In a reply: wait this long before the next part (not a part the editor sends)."""

    seconds: float


@dataclass(frozen=True)
class EchoRequest:
    """In a reply: a text part holding the request as JSON (filled in by the model)."""


@dataclass(frozen=True)
class Fail:
    """In a reply: the editor fails the request with this error (the reply ends there)."""

    code: EditorErrorCode
    message: str
    name: str = ""


Reply = list[ResponsePart | Pause | Fail | EchoRequest]


def last_part(messages: list[ChatMessage]) -> MessagePart | None:
    if not messages or not messages[-1].content:
        return None
    return messages[-1].content[-1]


def last_item_text(messages: list[ChatMessage]) -> str:
    """The text of the last input item: a tool's output, or the whole last message's text."""
    part = last_part(messages)
    if isinstance(part, ToolResultPart):
        return tool_result_text(part)
    if part is None:
        return ""
    return "\n".join(p.value for p in messages[-1].content if isinstance(p, TextPart))


def part_text(part: MessagePart | None) -> str:
    """The text a rule matches: a text part's value, or a tool result's text content."""
    if isinstance(part, TextPart):
        return part.value
    if isinstance(part, ToolResultPart):
        return tool_result_text(part)
    return ""


def tool_result_text(part: ToolResultPart) -> str:
    return "".join(item.value for item in part.content if isinstance(item, TextPart))
