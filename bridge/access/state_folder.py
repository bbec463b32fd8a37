"""The user's state folder, per platform: where the usage ledger and `serve`'s API key live
(one for every bridge of the user). No settings imported: `serve`'s process reads it too."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from bridge.user_home import user_home

APP_FOLDER = "maestro-bridge"


def state_folder(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """`$XDG_STATE_HOME` (Linux, else `~/.local/state`), `~/Library/Application Support`
    (macOS), `%LOCALAPPDATA%` (Windows), each with a `maestro-bridge` folder."""
    environ = os.environ if environ is None else environ
    platform = platform or sys.platform
    home = user_home(environ, platform)
    if platform == "win32":
        base = Path(environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(environ.get("XDG_STATE_HOME") or home / ".local" / "state")
    return base / APP_FOLDER
