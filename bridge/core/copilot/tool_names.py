"""Tool names as Copilot takes them (`^[\\w-]{1,64}$`, ASCII), and back.

Copilot throws for a tool name with any other character (the whole request fails), and the
providers behind it take at most 64 characters. A name that already fits is sent as it is. Any
other becomes a readable sanitised name plus `_` and 8 hex digits of its SHA-256: computed from
the name alone, so the same client name is the same editor name on every turn, whatever else
the request holds, and two client names cannot meet on one editor name unless a client sends
that hash-suffixed name itself (then the suffix grows until they differ).
"""

from __future__ import annotations

import hashlib
import re

MAX_NAME_CHARS = 64
_VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INVALID_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
_HASH_CHARS = 8


def is_editor_name(name: str) -> bool:
    """Whether Copilot takes `name` as it is."""
    return _VALID.fullmatch(name) is not None


def editor_name(name: str, hash_chars: int = _HASH_CHARS) -> str:
    """The name Copilot sees for the client's tool `name` (itself when it fits)."""
    if is_editor_name(name) and hash_chars == _HASH_CHARS:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:hash_chars]
    readable = _INVALID_CHARS.sub("_", name).strip("_") or "tool"
    return f"{readable[: MAX_NAME_CHARS - hash_chars - 1]}_{digest}"


class ToolNames:
    """The client's tool names and the editor's, both ways, for one request."""

    def __init__(self) -> None:
        self.to_editor: dict[str, str] = {}
        self.to_client: dict[str, str] = {}  # only the names that differ

    def editor(self, name: str) -> str:
        """The editor's name for a client name (the same on every call)."""
        known = self.to_editor.get(name)
        if known is not None:
            return known
        mapped = editor_name(name)
        hash_chars = _HASH_CHARS
        # Another client name already has it (a client sent a hash-suffixed name itself).
        while self.to_client.get(mapped, name) != name or (
            mapped != name and mapped in self.to_editor
        ):
            hash_chars += 4
            mapped = editor_name(name, hash_chars)
        self.to_editor[name] = mapped
        if mapped != name:
            self.to_client[mapped] = name
        return mapped
