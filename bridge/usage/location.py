"""Where the usage file lives unless told otherwise: the user's state folder, per platform.

One file for every bridge of the user (each editor window, `serve`), so that totals and
budgets count them all. The VS Code extension passes its global storage folder instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from bridge.settings import UsageSettings
from bridge.user_home import user_home

FILE_NAME = "usage.sqlite3"
APP_FOLDER = "maestro-bridge"


def default_usage_path(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> Path:
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
    return base / APP_FOLDER / FILE_NAME


def ledger_path(usage: UsageSettings) -> Path | None:
    """The ledger's file the settings name, or None when it is off ("none")."""
    if usage.database.strip().lower() == "none":
        return None
    return Path(usage.database).expanduser() if usage.database.strip() else default_usage_path()
