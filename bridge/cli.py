"""The `maestro-bridge` command: `lsp` (what editors launch) and `serve` (the headless editor)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from typing import Any

from bridge import __version__

DEFAULT_PORT = 23335
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="maestro-bridge",
        description="Serve the OpenAI Responses API from an editor's chat models.",
    )
    parser.add_argument("--version", action="version", version=f"maestro-bridge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lsp", help="run the language server on stdio (what the editor launches)")
    serve = sub.add_parser(
        "serve", help="run the headless editor with the simulated model, and the bridge"
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port to bind; 0 picks a free one (default {DEFAULT_PORT})",
    )
    serve.add_argument(
        "--script",
        metavar="FILE",
        help="JSON rules that script the simulated model's replies (see README)",
    )
    serve.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV),
        help=f"require this key from clients (default: ${API_KEY_ENV}, else none)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "lsp":
        from lsp.main import run_stdio

        return run_stdio()
    return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    from headless_editor.script import ScriptError, load_script
    from lsp.main import configure_logging

    configure_logging()
    script = None
    if args.script:
        try:
            script = load_script(args.script)
        except ScriptError as exc:
            print(f"maestro-bridge: {exc}", file=sys.stderr)
            return 2
    options: dict[str, Any] = {"host": args.host, "port": args.port, "apiKey": args.api_key}
    try:
        return asyncio.run(_run_headless(options, script))
    except KeyboardInterrupt:
        return 130


def _banner(url: str, api_key: str | None) -> str:
    key_env = "MAESTRO_BRIDGE_API_KEY"
    auth = f"-H 'Authorization: Bearer {api_key}' " if api_key else ""
    return f"""
Codex CLI (~/.codex/config.toml):
  model = "sim-echo"
  model_provider = "maestro"

  [model_providers.maestro]
  name = "Maestro Bridge"
  base_url = "{url}"
  wire_api = "responses"{
        f'''
  env_key = "{key_env}"'''
        if api_key
        else ""
    }

curl:
  curl -sN {url}/responses -H 'Content-Type: application/json' {auth}\\
    -d '{{"model": "sim-echo", "input": "Hello!", "stream": true}}'

Press Ctrl-C to stop."""


async def _run_headless(options: dict[str, Any], script: Any) -> int:
    from headless_editor.spawn import spawn_language_server

    # The language server first: its imports then overlap with the editor's (start-up time).
    process = await spawn_language_server()
    from headless_editor.editor import EditorStartError, HeadlessEditor

    editor = HeadlessEditor(script=script)
    # Handlers first: a SIGTERM right after the "Listening" line must still stop cleanly.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        url = await editor.start(options, process=process)
    except (EditorStartError, asyncio.TimeoutError, OSError) as exc:
        print(f"maestro-bridge: could not start: {exc or 'timed out'}", file=sys.stderr)
        return 1
    print(f"Listening on {url}", flush=True)
    print(_banner(url, options.get("apiKey")), flush=True)

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


if __name__ == "__main__":
    sys.exit(main())
