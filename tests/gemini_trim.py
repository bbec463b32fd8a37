"""Take Gemini CLI's own texts out of a captured request, keep every fact about its shape.

Gemini CLI's system prompts (its main prompt, the router's rubric), its session context and
its tool descriptions are long; the fixtures keep them out so that they stay small and carry
no text of the CLI's. `trim_request` returns a copy in which every string longer than
LONG_TEXT characters is a placeholder giving only its size, and every `description` string
(of a tool, a parameter or a router schema property) is one, whatever its length. Keys,
part kinds, counts, model names, ids, paths and headers stay as sent. The machine's own
paths in the session context go with its text. Trimming is idempotent (a placeholder is
shorter than LONG_TEXT), so saved fixtures can be trimmed again.
"""

from __future__ import annotations

from typing import Any

from text_placeholders import LONG_TEXT, Placeholders

__all__ = ["LONG_TEXT", "is_placeholder", "placeholder", "trim_request", "trim_text"]
PLACEHOLDERS = Placeholders("Gemini CLI")
placeholder = PLACEHOLDERS.placeholder
is_placeholder = PLACEHOLDERS.is_placeholder
trim_text = PLACEHOLDERS.trim_text


def trim_value(value: Any, key: str | None = None) -> Any:
    """A trimmed copy of a JSON value (`key`: the name it was found under)."""
    if isinstance(value, dict):
        return {name: trim_value(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [trim_value(item) for item in value]
    if isinstance(value, str):
        if key == "description" and not is_placeholder(value):
            return placeholder(value)
        return trim_text(value)
    return value


def trim_request(request: dict[str, Any]) -> dict[str, Any]:
    """A trimmed copy of a capture (`{"method", "path", "headers", "body"}`): only the body's
    strings change."""
    trimmed = dict(request)
    trimmed["body"] = trim_value(request.get("body"))
    return trimmed
