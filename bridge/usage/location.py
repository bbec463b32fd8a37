"""Where the usage file lives unless told otherwise: the user's state folder, per platform.

One file for every bridge of the user (each editor window, `serve`), so that totals and
budgets count them all. The VS Code extension passes its global storage folder instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bridge.access.state_folder import state_folder
from bridge.settings import UsageSettings

FILE_NAME = "usage.sqlite3"


def default_usage_path(
    environ: Mapping[str, str] | None = None, platform: str | None = None
) -> Path:
    """The usage file in the user's state folder (`state_folder`)."""
    return state_folder(environ, platform) / FILE_NAME


def ledger_path(usage: UsageSettings) -> Path | None:
    """The ledger's file the settings name, or None when it is off ("none")."""
    if usage.database.strip().lower() == "none":
        return None
    return Path(usage.database).expanduser() if usage.database.strip() else default_usage_path()
