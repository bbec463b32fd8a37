"""`maestro-bridge lsp`: the language server on stdio, on an event loop we own.

pygls's `start_io` reads stdin through a thread pool one line at a time; an asyncio pipe reader
is an order of magnitude faster (pygls-notes.md), and owning the loop lets the HTTP endpoint
share it. Where asyncio cannot take the editor's pipes (Windows), lsp/stdio_transport.py reads
and writes them through threads of our own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys

from bridge.log_redaction import redact_logs
from lsp import rpc
from lsp.stdio_transport import open_stdio, widen_pipe

log = logging.getLogger(__name__)

LOG_LEVEL_ENV = "MAESTRO_BRIDGE_LOG_LEVEL"


def configure_logging() -> None:
    """Logs go to stderr (stdout is the protocol). pygls logs message bodies at INFO (they hold
    prompts) and logs every JSON-RPC error reply, expected ones included, with a traceback; so
    it is silenced unless debugging was asked for. Our own code logs what matters."""
    level = os.environ.get(LOG_LEVEL_ENV, "INFO").upper()
    known = isinstance(logging.getLevelName(level), int)
    logging.basicConfig(
        stream=sys.stderr,
        level=level if known else "INFO",
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not known:
        log.warning(
            "Ignoring %s=%r: not a log level (DEBUG, INFO, WARNING, ERROR)", LOG_LEVEL_ENV, level
        )
    redact_logs()  # every handler, before anything is logged
    if level != "DEBUG":
        logging.getLogger("pygls").setLevel(logging.CRITICAL)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


async def serve_stdio() -> None:
    # Imported here: `maestro-bridge serve` imports this module for `configure_logging` only,
    # and must not pay for aiohttp and the server it does not run (start-up time, memory).
    from lsp.server import create_server

    server = create_server()
    widen_pipe(sys.stdout.fileno())
    stdio = await open_stdio(server.backend.editor_gone)
    server.protocol.set_writer(stdio.writer)
    backend = server.backend
    fast = {rpc.CHAT_PARTS: backend.on_chat_parts, rpc.CHAT_INPUT: backend.on_chat_input}
    try:
        await rpc.read_messages(
            stdio.reader, server.protocol, fast, server.backend.on_chat_parts_json
        )
    finally:
        # The editor is gone (or said exit): nobody may keep holding the port.
        server.backend.editor_gone()
        await server.stop_http()
        await stdio.flush()


def run_stdio() -> int:
    configure_logging()
    code = 0
    try:
        asyncio.run(serve_stdio())
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:  # pygls answers `exit` with sys.exit
        code = int(exc.code or 0)
    _exit_at_once(code)
    return code  # not reached


def _exit_at_once(code: int) -> None:
    """Everything is closed by now (HTTP endpoint, pipes). Python's own teardown of the
    imported modules takes 0.3-1 s on a busy machine, and an editor that went away must find
    the server gone within a second (no orphan holding the port): skip it."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
