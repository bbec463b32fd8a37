"""`maestro-bridge serve`: the headless editor (with the simulated model) and the language
server it starts, as an editor does, which hosts the bridge's endpoint.

Imported by bridge/cli.py's main() once it has refused ssl (bridge/plain_http.py): asyncio,
imported here, must not load it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bridge.heap_tuning import keep_large_buffers
from bridge.mcp import command as tool_command

if TYPE_CHECKING:
    from headless_editor.adopted_process import ServerProcess


def run_serve(
    args: argparse.Namespace,
    options: dict[str, Any],
    spawned: subprocess.Popen[bytes] | None = None,
) -> int:
    """`maestro-bridge serve`: until stopped; the exit code. `options`: the language server's
    initializationOptions the flags make (bridge/cli.py's `serve_options`, passed in so that
    this module does not import the CLI that imports it). `spawned`: the language server, if
    bridge/cli.py spawned it before parsing the flags (headless_editor/spawn.py)."""
    try:
        return asyncio.run(_serve_spawned_first(args, options, spawned))
    except KeyboardInterrupt:
        return 130


async def _serve_spawned_first(
    args: argparse.Namespace, options: dict[str, Any], spawned: subprocess.Popen[bytes] | None
) -> int:
    """The language server is spawned before anything else: its imports (most of the start-up
    time) run on the other core while this process imports, checks the flags and builds the
    editor. Flags found wrong (here, or by the language server when it checks the options they
    make) stop it again before anything is printed but the error."""
    if spawned is not None:
        from headless_editor.adopted_process import adopt

        process: ServerProcess = await adopt(spawned)
    else:
        from headless_editor.spawn import spawn_language_server

        process = await spawn_language_server()
    try:
        prepared = prepare_headless(args, options)
    except BaseException:
        await _discard(process)
        raise
    if isinstance(prepared, int):
        await _discard(process)
        return prepared
    return await _run_headless(prepared, process)


async def _discard(process: ServerProcess) -> None:
    """A spawned language server no longer wanted (it has not been initialized yet)."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    await process.wait()


@dataclass
class _Headless:
    options: dict[str, Any]
    script: Any
    key_lines: list[str]


def prepare_headless(args: argparse.Namespace, options: dict[str, Any]) -> _Headless | int:
    """The options and script for the headless editor, or the exit code (2) when the script or
    the bind is wrong (the message is printed)."""
    # Nothing here imports pydantic (nor the bridge's settings): the language server checks
    # the options these flags make (lsp/server.py), and this process stays small (idle memory,
    # docs/benchmarks.md). Only the bind is checked here, before anything starts.
    from bridge.access.serve_key import ServeKeyError, key_lines, settle_serve_key
    from bridge.http.bind_policy import BindRefused, check_bind
    from bridge.log_redaction import redact_logs
    from lsp.main import configure_logging

    configure_logging()
    try:
        key = settle_serve_key(args)
    except ServeKeyError as exc:
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 2
    redact_logs(secret=args.api_key)  # the headless editor's own logs, in this process
    script = None
    if args.script:
        from headless_editor.script import ScriptError, load_script  # pydantic reads scripts

        try:
            script = load_script(args.script)
        except ScriptError as exc:
            print(f"maestro-bridge: {exc}", file=sys.stderr)
            return 2
    try:
        check_bind(args.host, allow_remote=args.allow_remote, api_key=args.api_key)
    except BindRefused as exc:
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 2
    return _Headless({**options, "apiKey": args.api_key}, script, key_lines(key))


async def _run_headless(headless: _Headless, process: ServerProcess) -> int:
    from bridge.serve_banner import banner
    from bridge.stop_signals import install_stop_handlers
    from headless_editor.editor import EditorStartError, HeadlessEditor, OptionsRefused

    options = headless.options
    editor = HeadlessEditor(script=headless.script)
    # Handlers first: a SIGTERM right after the "Listening" line must still stop cleanly.
    # Each platform's own ways (Ctrl-C, Ctrl-Break, SIGTERM, stdin closed): bridge/stop_signals.py.
    stop = asyncio.Event()
    install_stop_handlers(stop.set)
    try:
        url = await editor.start(options, process=process)
    except OptionsRefused as exc:  # a flag's value out of range: a usage error, as argparse's
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 2
    except (EditorStartError, asyncio.TimeoutError, OSError) as exc:
        print(f"maestro-bridge: could not start: {exc or 'timed out'}", file=sys.stderr)
        return 1
    print(f"Listening on {url}", flush=True)
    if options["tools"]["enable"]:
        print(f"Editor tools (MCP, Streamable HTTP): {tool_command.mcp_url(url)}", flush=True)
    for line in headless.key_lines:
        print(line, flush=True)
    # An alias is a name Codex knows (it picks its tools by name): show the first one.
    model = next(iter(options.get("modelAliases") or {}), "sim-echo")
    print(banner(url, options.get("apiKey"), model), flush=True)
    gc.freeze()  # as the language server does once it listens (lsp/endpoint.py)
    keep_large_buffers()  # the chats it answers are as large as the requests

    stopped = asyncio.create_task(stop.wait())
    exited = asyncio.create_task(editor.wait_closed())
    await asyncio.wait({stopped, exited}, return_when=asyncio.FIRST_COMPLETED)
    if exited.done():
        print("maestro-bridge: the language server exited unexpectedly", file=sys.stderr)
        stopped.cancel()
        return 1
    exited.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await exited
    await editor.stop()
    return 0
