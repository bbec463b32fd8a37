"""Take Aider's long prompt texts out of a captured request, keep every fact about its shape.

Aider's prompts (its system prompt, example conversations, edit-format rules) are long; the
fixtures keep them out so that they stay small and readable. `trim_request` returns a copy in
which each message content longer than LONG_TEXT characters is a placeholder giving only its
size; roles, message count, model, parameters, path and headers stay as sent. Trimming is
idempotent (a placeholder is shorter than LONG_TEXT), so saved fixtures can be trimmed again.
"""

from __future__ import annotations

import copy
from typing import Any

from text_placeholders import LONG_TEXT, Placeholders

__all__ = ["LONG_TEXT", "is_placeholder", "placeholder", "trim_request", "trim_text"]
PLACEHOLDERS = Placeholders("Aider")
placeholder = PLACEHOLDERS.placeholder
is_placeholder = PLACEHOLDERS.is_placeholder
trim_text = PLACEHOLDERS.trim_text


def trim_request(request: dict[str, Any]) -> dict[str, Any]:
    """A trimmed copy of a capture (`{"method", "path", "headers", "body"}`)."""
    trimmed = copy.deepcopy(request)
    body = trimmed.get("body")
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages if isinstance(messages, list) else []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            message["content"] = trim_text(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    part["text"] = trim_text(part["text"])
    return trimmed
