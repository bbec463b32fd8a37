"""Spawning the language server, kept free of heavy imports.

`maestro-bridge serve` spawns it first, before it parses its flags and imports asyncio, the
editor and the simulated model (bridge/cli.py, bridge/serve_run.py), so the language server's
own imports (lsprotocol, aiohttp: most of the start-up time) run on the other core at the same
time as those, instead of after them. Where asyncio cannot take over pipes made by
`subprocess.Popen` (Windows: its event loop needs overlapped pipes), it spawns the server
through asyncio once that is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from headless_editor.process_group import own_group

if TYPE_CHECKING:
    import asyncio

# `python -m MODULE` puts the working folder first on sys.path, so a user's folder holding a
# `bridge/`, `lsp/` or `headless_editor/` of its own would be imported instead of this package.
# `python -c` puts '' (the same folder) there instead, which this code removes before it runs
# MODULE just as `-m` would. `-P` does that only from Python 3.11 on, and `-I` would also drop
# PYTHON* variables and the user's site-packages (a `pip install --user`). Under
# PYTHONSAFEPATH (3.11+) nothing was put there, so nothing is removed.
_RUN_MODULE = """\
import runpy, sys
if not getattr(sys.flags, "safe_path", False):
    del sys.path[0]
del sys.argv[0]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def python_module_command(module: str, *args: str) -> list[str]:
    """`python -m MODULE ARGS` that imports from the installed packages, never from the working
    folder. The working folder itself stays the caller's, so relative paths in ARGS work."""
    return [sys.executable, "-c", _RUN_MODULE, module, *args]


def _language_server_command() -> list[str]:
    return python_module_command("bridge.cli", "lsp")


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


async def spawn_language_server(command: list[str] | None = None) -> asyncio.subprocess.Process:
    import asyncio

    return await asyncio.create_subprocess_exec(
        *(command or _language_server_command()),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=_environment(),
        # Its own process group: a terminal's Ctrl-C reaches only us, and we stop it politely.
        **own_group(),
    )


def spawns_before_asyncio(platform: str = sys.platform) -> bool:
    """Whether `spawn_before_asyncio` can be used: asyncio takes over `Popen`'s pipes on POSIX
    only (bridge/serve_run.py then adopts the process: headless_editor/adopted_process.py)."""
    return platform != "win32"


def spawn_before_asyncio() -> subprocess.Popen[bytes]:
    """The language server, spawned at once with `subprocess` (asyncio is not imported yet)."""
    return subprocess.Popen(
        _language_server_command(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=_environment(),
        **own_group(),
    )
