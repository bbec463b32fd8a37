"""Take Claude Code's own prose out of a captured request, keep every fact about its shape.

Claude Code's system prompt, tool descriptions and reminders are "(c) Anthropic PBC. All rights
reserved", so the fixtures must not carry them. `trim_request` returns a copy in which each
such string is a placeholder that gives only its size (`placeholder(text)`); keys, block
counts, cache_control, tool names, schema shapes, enums, required lists, model names and
headers stay as sent. What is replaced, in the body:

* every `system` text except the billing line (`x-anthropic-billing-header: ...`, a machine
  header the bridge must recognise and drop);
* the text of `role: "system"` messages (a string or text blocks);
* each tool's `description`, and every string `description` inside its `input_schema`;
* a `<system-reminder>` text in other messages (its tags stay, so the block is recognisable);
* any other string over LONG_TEXT characters, unless it is one of `ours` (the scenario's own
  prompt, written by this project).

Trimming is idempotent: placeholders are left as they are, so stored fixtures can be trimmed
again when these rules change.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Collection
from typing import Any

BILLING_HEADER = "x-anthropic-billing-header:"
REMINDER_OPEN = "<system-reminder>"
REMINDER_CLOSE = "</system-reminder>"
LONG_TEXT = 200  # longer strings in a body are prose, not facts
PLACEHOLDER = re.compile(
    r"(<system-reminder>\n)?"
    r"\[Claude Code text, \d+ characters, not reproduced\]"
    r"(\n</system-reminder>)?"
)


def placeholder(text: str) -> str:
    return f"[Claude Code text, {len(text)} characters, not reproduced]"


def is_placeholder(text: str) -> bool:
    return PLACEHOLDER.fullmatch(text) is not None


def trim_request(request: dict[str, Any], ours: Collection[str] = ()) -> dict[str, Any]:
    """A trimmed copy of a capture (`{"method", "path", "headers", "body"}`); headers, method
    and path are facts and stay. `ours`: texts of this project's own that stay too."""
    trimmed = copy.deepcopy(request)
    body = trimmed.get("body")
    if isinstance(body, dict):
        trimmed["body"] = trim_body(body, frozenset(ours))
    return trimmed


def trim_body(body: dict[str, Any], ours: frozenset[str]) -> dict[str, Any]:
    if "system" in body:
        body["system"] = _trim_system(body["system"])
    if isinstance(body.get("messages"), list):
        body["messages"] = [_trim_message(message, ours) for message in body["messages"]]
    if isinstance(body.get("tools"), list):
        body["tools"] = [_trim_tool(tool) for tool in body["tools"]]
    trimmed: dict[str, Any] = trim_long_strings(body, ours)
    return trimmed


def _replace(text: str) -> str:
    return text if is_placeholder(text) else placeholder(text)


def _trim_system(system: Any) -> Any:
    if isinstance(system, str):
        return system if system.startswith(BILLING_HEADER) else _replace(system)
    if isinstance(system, list):
        return [_trim_system_block(block) for block in system]
    return system


def _trim_system_block(block: Any) -> Any:
    text = block.get("text") if isinstance(block, dict) else None
    if isinstance(text, str) and not text.startswith(BILLING_HEADER):
        block["text"] = _replace(text)
    return block


def _trim_message(message: Any, ours: frozenset[str]) -> Any:
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if message.get("role") == "system":
        if isinstance(content, str):
            message["content"] = _replace(content)
        elif isinstance(content, list):
            message["content"] = [_trim_text_block(block, _replace) for block in content]
    elif isinstance(content, str):
        message["content"] = _trim_reminder(content)
    elif isinstance(content, list):
        message["content"] = [_trim_text_block(block, _trim_reminder) for block in content]
    return message


def _trim_text_block(block: Any, trim: Callable[[str], str]) -> Any:
    if (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ):
        block["text"] = trim(block["text"])
    return block


def _trim_reminder(text: str) -> str:
    """A `<system-reminder>...</system-reminder>` text with its inside replaced; others as is."""
    if is_placeholder(text) or not text.startswith(REMINDER_OPEN):
        return text
    if not text.rstrip().endswith(REMINDER_CLOSE):
        return _replace(text)
    inside = text.removeprefix(REMINDER_OPEN).rstrip().removesuffix(REMINDER_CLOSE).strip("\n")
    return f"{REMINDER_OPEN}\n{placeholder(inside)}\n{REMINDER_CLOSE}"


def _trim_tool(tool: Any) -> Any:
    if not isinstance(tool, dict):
        return tool
    if isinstance(tool.get("description"), str):
        tool["description"] = _replace(tool["description"])
    if "input_schema" in tool:
        tool["input_schema"] = _trim_schema_descriptions(tool["input_schema"])
    return tool


def _trim_schema_descriptions(schema: Any) -> Any:
    """Every string under a `description` key; a property named `description` is a schema
    (a dict), so it is walked into, not replaced."""
    if isinstance(schema, dict):
        return {
            key: _replace(value)
            if key == "description" and isinstance(value, str)
            else _trim_schema_descriptions(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_trim_schema_descriptions(item) for item in schema]
    return schema


def trim_long_strings(value: Any, ours: frozenset[str]) -> Any:
    """A copy of `value` with every string over LONG_TEXT characters but `ours` replaced."""
    if isinstance(value, dict):
        return {key: trim_long_strings(item, ours) for key, item in value.items()}
    if isinstance(value, list):
        return [trim_long_strings(item, ours) for item in value]
    if isinstance(value, str) and len(value) > LONG_TEXT and value not in ours:
        return _replace(value)
    return value
