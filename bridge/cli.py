"""The `maestro-bridge` command: `lsp` (what editors launch), `serve` (the headless editor)
and `configure codex` / `claude-code` / `gemini` (a client's configuration for the running
bridge)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

from bridge import __version__
from bridge.plain_http import without_tls
from bridge.web_search import command as web_search_command

# The subcommands' own modules (budgets, configure, tools, usage) are imported where they are
# used: `serve` spawns its language server before importing them (`_spawn_for_serve`).

DEFAULT_PORT = 23335
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
TLS_ENV = "MAESTRO_BRIDGE_TLS"


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    from bridge.budgets import command as budget_command
    from bridge.configure.arguments import add_configure
    from bridge.doctor.command import add_doctor
    from bridge.mcp import command as tool_command
    from bridge.run.command import add_run
    from bridge.usage import command as usage_command

    parser = argparse.ArgumentParser(
        prog="maestro-bridge",
        description="Serve an editor's chat models as the OpenAI Responses, Anthropic Messages, "
        "Chat Completions and Gemini APIs.",
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
        help="JSON rules that script the simulated model's replies (docs/simulated-model.md)",
    )
    serve.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV),
        help=f"require this key from clients (default: ${API_KEY_ENV}, else none)",
    )
    serve.add_argument(
        "--keepalive-seconds",
        type=float,
        default=10.0,
        help="seconds of model silence on a stream before a keepalive, and again after each: a "
        "`keepalive` event (Responses, SSE and WebSocket), an `event: ping` (Anthropic "
        "Messages), a `: keepalive` comment (Chat Completions), a blank line (Gemini); 0 = off",
    )
    serve.add_argument(
        "--model-alias",
        metavar="NAME=MODEL",
        action="append",
        type=_alias,
        default=[],
        help="answer requests for model NAME with the editor model MODEL (repeatable)",
    )
    serve.add_argument(
        "--default-model",
        metavar="MODEL",
        help="answer requests for unknown model names with MODEL (default: 404)",
    )
    serve.add_argument(
        "--fallback-model",
        metavar="MODEL",
        help="ask MODEL once when the requested model fails with a rate limit, a spent quota "
        "or a server error before its first part (default: none)",
    )
    serve.add_argument(
        "--websocket-max-seconds",
        type=_positive_seconds,
        metavar="SECONDS",
        help="close WebSocket connections after this long (default 3600, as OpenAI does)",
    )
    _add_security_options(serve)
    usage_command.add_serve_options(serve)
    budget_command.add_serve_options(serve)
    tool_command.add_serve_options(serve)
    web_search_command.add_serve_options(serve)
    add_configure(sub)
    add_run(sub)
    add_doctor(sub)
    usage_command.add_usage_command(sub)
    from bridge.access.command import add_key_command

    add_key_command(sub)
    return parser


def _alias(text: str) -> tuple[str, str]:
    from bridge.core.models import parse_alias

    try:
        return parse_alias(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_security_options(serve: argparse.ArgumentParser) -> None:
    """Access and limits (docs/security.md); unset flags keep the settings' defaults."""
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host (an API key is required too)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host header name (repeatable; '*' accepts any)",
    )
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let web pages from this origin (scheme://host[:port]) call the API (repeatable)",
    )
    serve.add_argument(
        "--max-concurrent",
        type=int,
        metavar="N",
        help="model requests at once; more get 429 (default 64)",
    )
    serve.add_argument(
        "--idle-timeout",
        type=float,
        metavar="SECONDS",
        help="fail a response when the editor sends nothing for this long (default 300)",
    )
    serve.add_argument(
        "--total-timeout",
        type=float,
        metavar="SECONDS",
        help="fail a response that takes longer than this overall (default 1800)",
    )
    _add_connection_options(serve)
    serve.add_argument(
        "--write-timeout",
        type=float,
        metavar="SECONDS",
        help="close a stream whose client reads nothing for this long (default 30)",
    )
    serve.add_argument(
        "--item-cache-bytes",
        type=int,
        metavar="N",
        help="memory for emitted items that `item_reference` inputs may name (default 16 MiB)",
    )
    serve.add_argument(
        "--answer-check-seconds",
        type=float,
        metavar="SECONDS",
        help="time to check a structured answer against its JSON Schema (default 2)",
    )
    serve.add_argument(
        "--websocket-kept-bytes",
        type=int,
        metavar="N",
        help="what one WebSocket connection keeps for previous_response_id, images included "
        "(default 64 MiB; 0 keeps nothing)",
    )
    serve.add_argument(
        "--max-json-values",
        type=int,
        metavar="N",
        help="JSON values (strings, numbers, objects, arrays) one request may hold "
        "(default 500000)",
    )


def _add_connection_options(serve: argparse.ArgumentParser) -> None:
    """Bounds on connections (bridge/http/connection_limits.py, bridge/http/body_deadline.py)."""
    serve.add_argument(
        "--body-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="a request body must arrive within this long, else 408 (default 30)",
    )
    serve.add_argument(
        "--max-concurrent-body-bytes",
        type=int,
        metavar="N",
        help="request body bytes held at once across requests, reserved before a body is "
        "read; more get 429 (default 64 MiB, never below the largest body)",
    )
    serve.add_argument(
        "--header-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="a started request's headers must arrive within this long, else 408 (default 15)",
    )
    serve.add_argument(
        "--keep-alive-timeout",
        type=_positive_seconds,
        metavar="SECONDS",
        help="close a connection with no request running after this long (default 60)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        metavar="N",
        help="open connections at most, lowered to fit the file descriptor limit (default 1024)",
    )


def _security_options(args: argparse.Namespace) -> dict[str, Any]:
    limits = {
        key: value
        for key, value in (
            ("maxConcurrentRequests", args.max_concurrent),
            ("idleTimeoutSeconds", args.idle_timeout),
            ("totalTimeoutSeconds", args.total_timeout),
            ("writeTimeoutSeconds", args.write_timeout),
            ("itemCacheBytes", args.item_cache_bytes),
            ("bodyTimeoutSeconds", args.body_timeout),
            ("maxConcurrentBodyBytes", args.max_concurrent_body_bytes),
            ("headerTimeoutSeconds", args.header_timeout),
            ("keepAliveTimeoutSeconds", args.keep_alive_timeout),
            ("maxConnections", args.max_connections),
            ("answerCheckSeconds", args.answer_check_seconds),
            ("websocketKeptBytes", args.websocket_kept_bytes),
            ("maxJsonValues", args.max_json_values),
        )
        if value is not None
    }
    return {
        "allowRemote": args.allow_remote,
        "allowedHosts": args.allowed_host,
        "allowedOrigins": args.allowed_origin,
        "limits": limits,
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["lsp"]:  # what editors launch: no parser to build, no flags' modules to import
        return _run_lsp()
    from bridge.run.argv import split_agent_args

    argv, agent_args = split_agent_args(argv)  # `run AGENT -- ARGS`: ARGS are the agent's
    if web_search_command.needs_tls(argv):  # the language server (spawned next) searches
        os.environ[TLS_ENV] = "1"  # over https: it keeps `ssl` (bridge/plain_http.py)
    spawned = _spawn_for_serve(argv)
    try:
        args = _parser().parse_args(argv)
    except BaseException:  # wrong flags, or --help: the language server is not wanted
        if spawned is not None:
            spawned.kill()
            spawned.wait()
        raise
    if args.command == "lsp":
        return _run_lsp()
    if args.command == "configure":
        from bridge.configure.arguments import run_configure

        return run_configure(args)
    if args.command == "run":
        from bridge.run.command import run_run

        return run_run(args, agent_args)
    if args.command == "doctor":
        from bridge.doctor.command import run_doctor

        return run_doctor(args)
    if args.command == "usage":
        from bridge.usage import command as usage_command

        return usage_command.run_usage(args)
    if args.command == "key":
        from bridge.access.command import run_key

        return run_key(args)
    if os.environ.get(TLS_ENV) != "1":
        without_tls()  # as for `lsp`: before asyncio is imported
    from bridge.serve_run import run_serve  # the headless editor and its language server

    return run_serve(args, serve_options(args), spawned)


def _run_lsp() -> int:
    if os.environ.get(TLS_ENV) != "1":  # set for a web search over https (docs/web-search.md)
        without_tls()  # plain HTTP only (bridge/plain_http.py): before asyncio is imported
    from lsp.main import run_stdio

    return run_stdio()


def _spawn_for_serve(argv: list[str]) -> subprocess.Popen[bytes] | None:
    """`serve`'s language server, spawned before anything else is imported: its own imports
    are most of the time until the endpoint answers, and this process's (the flags' modules,
    asyncio, the editor) then run beside them on the other core. Not for `--help`."""
    from headless_editor.spawn import spawn_before_asyncio, spawns_before_asyncio

    if argv[:1] != ["serve"] or "-h" in argv or "--help" in argv or not spawns_before_asyncio():
        return None
    return spawn_before_asyncio()


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The language server's initializationOptions the `serve` flags make."""
    from bridge.budgets import command as budget_command
    from bridge.mcp import command as tool_command
    from bridge.usage import command as usage_command

    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "apiKey": args.api_key,
        "modelAliases": dict(args.model_alias),
        "defaultModel": args.default_model,
        "keepaliveSeconds": args.keepalive_seconds,
        **_security_options(args),
        "fallbackModel": args.fallback_model,
        **usage_command.serve_options(args),
        **budget_command.serve_options(args),
        **tool_command.serve_options(args),
        **web_search_command.serve_options(args),
    }
    if args.websocket_max_seconds is not None:
        options.setdefault("limits", {})["websocketMaxSeconds"] = args.websocket_max_seconds
    return options


if __name__ == "__main__":
    sys.exit(main())
