"""The input as one text for the model's token counter (docs/protocol.md, "Counting the input").

What the editor counts when asked (`countInput`) and what the server counts for an editor that
does not: the messages' text in order, then the tools. Kept free of pydantic: the headless
editor's process counts with it too (docs/benchmarks.md, its idle memory); the VS Code
extension's editor-client/src/inputCount.ts makes the same text, held to it by
tests/fixtures/count_input/input_text.json.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Protocol

import msgspec

from bridge.core.image_tokens import data_part_tokens
from bridge.core.parts import ChatMessage, TextPart, ThinkingPart, ToolCallPart, ToolResultPart

_COMPACT = msgspec.json.Encoder()
_PYTHON_TEXT = json.JSONEncoder(ensure_ascii=False).encode  # what msgspec cannot write


class Tool(Protocol):
    """A tool as the model is offered it (the bridge's and the headless editor's ChatTool)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def inputSchema(self) -> dict[str, Any] | None: ...


def as_text(value: Any) -> str:
    """A tool call's input or a schema as the model reads it: compact JSON, as VS Code
    sends it (`JSON.stringify`); msgspec writes the thousands of a long history in C."""
    try:
        return _COMPACT.encode(value).decode()
    except (UnicodeEncodeError, TypeError, ValueError, OverflowError):
        return _PYTHON_TEXT(value)


def counted_text(messages: list[ChatMessage], tools: Iterable[Tool]) -> tuple[str, int]:
    """The counted text and the images' estimate (bridge/core/image_tokens.py), in one pass
    over every part: a long history is thousands of them, on every request."""
    texts: list[str] = []
    add = texts.append
    images = 0
    for message in messages:
        for part in message.content:
            kind = type(part)
            if kind is TextPart:
                add(part.value)  # type: ignore[union-attr]
            elif kind is ToolResultPart:
                for inner in part.content:  # type: ignore[union-attr]
                    if type(inner) is TextPart:
                        add(inner.value)
                    else:
                        images += data_part_tokens(inner)  # type: ignore[arg-type]
            elif kind is ToolCallPart:
                add(f"{part.name} {as_text(part.input)}")  # type: ignore[union-attr]
            elif kind is ThinkingPart:  # an earlier thought given back: the model reads it
                if part.value:  # type: ignore[union-attr]
                    add(part.value)  # type: ignore[union-attr]
            else:
                images += data_part_tokens(part)  # type: ignore[arg-type]
    for tool in tools:
        schema = as_text(tool.inputSchema) if tool.inputSchema else ""
        add(f"{tool.name} {tool.description} {schema}")
    return "\n".join(texts), images
