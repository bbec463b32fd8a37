"""The simulated model's own tokenizer: deterministic, dependency-free, roughly GPT-sized tokens."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from bridge.core.parts import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from headless_editor.chat_types import ChatTool

# A token is a word piece of at most 4 characters or one punctuation character. The whitespace
# before it rides along, so the pieces of a text concatenate back to exactly that text.
PIECE = re.compile(r"\s*(?:\w{1,4}|[^\w\s])")
IMAGE_TOKENS = 85


def count_tokens(text: str) -> int:
    return len(PIECE.findall(text))


def split_tokens(text: str) -> list[str]:
    """Cut `text` into one piece per token; trailing whitespace joins the last piece.

    Any run of whole pieces counts as many tokens as it has pieces, which is what lets the
    model stream, truncate and count text consistently.
    """
    pieces: list[str] = PIECE.findall(text)
    rest = text[sum(map(len, pieces)) :]
    if rest and pieces:
        pieces[-1] += rest
    elif rest:
        pieces.append(rest)
    return pieces


def count_json_tokens(value: Any) -> int:
    return count_tokens(json.dumps(value, sort_keys=True, ensure_ascii=False))


def count_tool_call_tokens(name: str, arguments: dict[str, Any]) -> int:
    return count_tokens(name) + count_json_tokens(arguments)


def count_tool_tokens(tools: list[ChatTool]) -> int:
    """What the offered tools add to the prompt: names, descriptions and schemas."""
    total = 0
    for tool in tools:
        total += count_tokens(tool.name) + count_tokens(tool.description)
        if tool.inputSchema is not None:
            total += count_json_tokens(tool.inputSchema)
    return total


def count_message_tokens(messages: list[ChatMessage]) -> int:
    return sum(_part_tokens(part) for message in messages for part in message.content)


def _part_tokens(part: MessagePart) -> int:
    if isinstance(part, TextPart):
        return count_tokens(part.value)
    if isinstance(part, DataPart):
        return _data_tokens(part)
    if isinstance(part, ToolCallPart):
        return count_tool_call_tokens(part.name, part.input)
    if isinstance(part, ThinkingPart):  # an earlier thought given back
        return count_tokens(part.value)
    return sum(_part_tokens(item) for item in part.content)


def _data_tokens(part: DataPart) -> int:
    if part.mimeType.startswith("image/"):
        return IMAGE_TOKENS  # like a low-detail image in OpenAI's models, whatever its size
    return count_tokens(data_text(part))


def data_text(part: DataPart) -> str:
    """Data other than an image (JSON, plain text), read by the model as the text it encodes."""
    try:
        raw = base64.b64decode(part.data)
    except (binascii.Error, ValueError):
        return ""
    return raw.decode("utf-8", errors="replace")
