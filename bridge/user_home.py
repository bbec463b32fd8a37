"""The user's home folder as the clients see it, on each platform.

Codex (Rust's home_dir), Claude Code and Gemini CLI (Node's os.homedir()) keep their files
under it: `~/.codex`, `~/.claude`, `~/.gemini`. On Windows that is %USERPROFILE%
(C:\\Users\\NAME), not %HOME%, which Git Bash, MSYS and Cygwin set to a folder of their own;
nor %APPDATA%, where none of the three looks. Elsewhere it is $HOME.

Used by `configure` and by the usage ledger's default place (bridge/usage/location.py), so
it sits at the bottom, beside the core (docs/architecture.md).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path


def user_home(environ: Mapping[str, str], platform: str | None = None) -> Path:
    if (platform or sys.platform) == "win32":  # read when called: tests force Windows
        value = environ.get("USERPROFILE", "")
        drive, path = environ.get("HOMEDRIVE", ""), environ.get("HOMEPATH", "")
        if not value and drive and path:
            value = drive + path
    else:
        value = environ.get("HOME", "")
    # Unset (a service's environment, a test's own): the operating system's own answer.
    return Path(value) if value else Path.home()
