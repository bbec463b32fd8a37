"""Which API key a command uses: `--api-key`, else `$MAESTRO_BRIDGE_API_KEY`, else the key
file in the state folder (bridge/access/key_file.py) — the order every command follows."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bridge.access.key_file import key_file_path, read_key

API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"


@dataclass(frozen=True)
class FoundKey:
    key: str
    origin: str  # "flag", "env" or "file"
    file: Path | None = None  # the key file, when it came from there


def find_api_key(
    flag: str | None, environ: Mapping[str, str] | None = None, path: Path | None = None
) -> FoundKey | None:
    """The key to send or require, without creating one; None when there is none."""
    environ = os.environ if environ is None else environ
    if flag:
        return FoundKey(flag, "flag")
    if environ.get(API_KEY_ENV):
        return FoundKey(environ[API_KEY_ENV], "env")
    path = path or key_file_path(environ)
    key = read_key(path)
    return FoundKey(key, "file", path) if key else None
