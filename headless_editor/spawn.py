"""Spawning the language server, kept free of heavy imports.

`maestro-bridge serve` calls this before it imports the editor and the simulated model, so the
language server's own imports (lsprotocol, aiohttp: most of the start-up time) run on the
other core at the same time as the editor's, instead of after them.
"""

from __future__ import annotations

import asyncio
import os
import sys


async def spawn_language_server(command: list[str] | None = None) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *(command or [sys.executable, "-m", "bridge.cli", "lsp"]),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # Its own process group: a terminal's Ctrl-C reaches only us, and we stop it politely.
        start_new_session=True,
    )
