"""`serve`'s options for the editor's tools over MCP (bridge/settings.py, ToolSettings;
docs/protocol.md, "Tools and language features")."""

from __future__ import annotations

import argparse
import math
from typing import Any

MIN_RESULT_CHARS = 1000  # ToolSettings.maxResultChars's own minimum
# The headless editor's tools (`sim_*`) work on its in-memory workspace, never on the disk or
# a shell: serve offers them beside the default set unless --tools-allow says otherwise.
SERVE_DEFAULT_ALLOW = ("@default", "sim_*")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _result_chars(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < MIN_RESULT_CHARS:
        raise argparse.ArgumentTypeError(f"must be at least {MIN_RESULT_CHARS} characters")
    return value


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--tools",
        action="store_true",
        help="serve the editor's tools and language features to agents as an MCP server at "
        "/mcp (the headless editor's simulated tools and workspace; default: off, /mcp answers "
        "404)",
    )
    serve.add_argument(
        "--no-key",
        action="store_true",
        help="with --tools and no --api-key: serve the tools WITHOUT a key, so that any local "
        "process can call them (a warning is printed; default: the key in the state folder's "
        "api-key file, created at first use; docs/security.md)",
    )
    serve.add_argument(
        "--tools-allow",
        action="append",
        default=[],
        metavar="GLOB",
        help="offer only the tools whose name matches GLOB (*, ?, [...]; case-sensitive; "
        "repeatable; `@default` stands for the default set: the language tools and the "
        "editor's read-only tools, docs/editor-tools.md; default: `@default` and the headless "
        "editor's simulated `sim_*` tools)",
    )
    serve.add_argument(
        "--tools-deny",
        action="append",
        default=[],
        metavar="GLOB",
        help="never offer nor call the tools whose name matches GLOB, even when --tools-allow "
        "names them (repeatable)",
    )
    serve.add_argument(
        "--tools-timeout",
        type=_seconds,
        metavar="SECONDS",
        help="cancel a tool call that runs longer and answer it as a tool error (default 120)",
    )
    serve.add_argument(
        "--tools-max-result-chars",
        type=_result_chars,
        metavar="N",
        help="cut a tool result's text beyond N characters, with a note saying how much was "
        f"left out (default 100000, at least {MIN_RESULT_CHARS})",
    )


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `tools` settings the flags set; unset ones keep the settings' defaults."""
    tools: dict[str, Any] = {
        "enable": args.tools,
        "requireKey": not args.no_key,
        "allow": list(args.tools_allow) or list(SERVE_DEFAULT_ALLOW),
        "deny": list(args.tools_deny),
    }
    if args.tools_timeout is not None:
        tools["timeoutSeconds"] = args.tools_timeout
    if args.tools_max_result_chars is not None:
        tools["maxResultChars"] = args.tools_max_result_chars
    return {"tools": tools}


def mcp_url(api_url: str) -> str:
    """Where MCP clients find the tools: /mcp beside the API's /v1."""
    return api_url.removesuffix("/v1") + "/mcp"
