"""A client's configuration file: reading it, and replacing it safely with a backup.

Shared by every `configure` target (Codex's config.toml, Claude Code's and Gemini CLI's
settings.json, Gemini CLI's .env): the format-specific merge lives with each target, the file
handling here, and the JSON object both settings.json files hold.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """The configuration cannot be read or written; the message is for the user."""


@dataclass(frozen=True)
class Change:
    key: str  # dotted: "model", "model_providers.maestro.base_url", "env.ANTHROPIC_MODEL"
    old: Any  # None: was not there
    new: Any  # None: removed


def set_value(
    container: Any,
    key: str,
    value: Any,
    label: str,
    changes: list[Change],
    read: Callable[[Any], Any] = lambda item: item,
) -> None:
    """Sets (or, for None, removes) `key` of a JSON object or TOML table, recording a Change
    when that changes anything; `read` turns what the file holds into plain Python."""
    old = read(container[key]) if key in container else None
    if old == value and type(old) is type(value):
        return
    if value is None:
        del container[key]
    else:
        container[key] = value
    changes.append(Change(label, old, value))


def json_object(text: str, not_json: str) -> dict[str, Any]:
    """The JSON object a settings file holds; {} for an empty file. `not_json` follows the
    parser's message when the text is no JSON (what the user can do about it)."""
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"it is not valid JSON ({exc}){not_json}") from None
    if not isinstance(document, dict):
        raise ConfigError("it is not a JSON object: fix it or move it away; nothing was written")
    return document


def object_at(document: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """The object at `path` in a settings document, created where missing; a value of another
    kind there is a ConfigError (nothing is written)."""
    container = document
    for depth, key in enumerate(path):
        inner = container.setdefault(key, {})
        if not isinstance(inner, dict):
            name = ".".join(path[: depth + 1])
            raise ConfigError(f"its `{name}` is not an object: fix it by hand; nothing was written")
        container = inner
    return container


def json_text(document: dict[str, Any]) -> str:
    """A settings file's new text: indented, non-ASCII kept as is."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def read_config(path: Path) -> str:
    """The file's text; empty when it does not exist yet."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read it ({exc})") from None


def peek_text(path: Path) -> str:
    """The file's text for a look only (`run`, `doctor`): empty when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def peek_json(path: Path) -> dict[str, Any]:
    """The JSON object a file holds, for a look only: empty when it holds none."""
    try:
        data = json.loads(peek_text(path) or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def write_config(path: Path, text: str, now: datetime) -> Path | None:
    """Writes `text` to `path` (through a symlink), first copying an existing file to a
    backup `<name>.bak-YYYYmmdd-HHMMSS` beside it; returns the backup's path, if any.

    The new text goes to a temporary file that then replaces the old one, so a crash never
    leaves a half-written configuration.
    """
    target = path.resolve() if path.is_symlink() else path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        backup = None
        if target.exists():
            text = in_line_endings_of(target.read_bytes(), text)
            backup = _free_backup_path(target, now)
            shutil.copy2(target, backup)
        temporary = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        try:
            # Owner-only: these files may hold tokens (Codex's experimental_bearer_token,
            # Claude Code's ANTHROPIC_AUTH_TOKEN).
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
                file.write(text)
            if backup is not None:
                shutil.copymode(backup, temporary)  # keep the mode the user chose
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot write it ({exc})") from None
    return backup


def in_line_endings_of(old: bytes, text: str) -> str:
    """`text` (read with Python's universal newlines: every line ends in \\n) with the line
    endings of the file it replaces: a file a Windows editor saved with CRLF keeps them."""
    if b"\r\n" in old and old.count(b"\r\n") * 2 >= old.count(b"\n"):
        return text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def _free_backup_path(target: Path, now: datetime) -> Path:
    stamp = now.strftime("%Y%m%d-%H%M%S")
    candidate = target.with_name(f"{target.name}.bak-{stamp}")
    number = 2
    while candidate.exists():  # two runs within a second keep both backups
        candidate = target.with_name(f"{target.name}.bak-{stamp}-{number}")
        number += 1
    return candidate


def merged_config(
    path: Path, label: str, merge: Callable[[str], tuple[str, list[Change]]]
) -> tuple[str, list[Change]]:
    """The file's text after `merge`, and what changed; a ConfigError names `label` and `path`."""
    try:
        return merge(read_config(path))
    except ConfigError as exc:
        raise ConfigError(f"{label} {path}: {exc}") from None


def write_changes(
    path: Path, text: str, changes: list[Change], dry_run: bool, now: datetime, label: str
) -> Path | None:
    """Writes `text` when something changed (and this is no dry run); the backup, if any."""
    if not changes or dry_run:
        return None
    try:
        return write_config(path, text, now)
    except ConfigError as exc:
        raise ConfigError(f"{label} {path}: {exc}") from None
