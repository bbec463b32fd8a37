"""The `maestro-bridge configure TARGET` options, and running the chosen target.

Only argparse here: each target's modules are imported when it runs, so `serve` and `lsp`
do not pay for them.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
DEFAULT_ROOT = "http://127.0.0.1:23335"


def add_configure(sub: Any) -> None:
    """Adds `configure codex`, `claude-code`, `gemini`, `opencode` and `qwen` to `sub`."""
    configure = sub.add_parser("configure", help="configure a client for the running bridge")
    targets = configure.add_subparsers(dest="target", required=True)
    codex = targets.add_parser(
        "codex",
        help="write the bridge's provider into Codex's config.toml ($CODEX_HOME or ~/.codex)",
    )
    codex.add_argument(
        "--model",
        metavar="NAME",
        help="the editor model (or an alias the bridge lists) Codex uses (default: the first)",
    )
    codex.add_argument(
        "--base-url",
        type=_http_url,
        default=f"{DEFAULT_ROOT}/v1",
        help=f"the running bridge (default {DEFAULT_ROOT}/v1)",
    )
    _add_common(codex, "Codex then reads it from there")
    _add_tools(codex, f"config.toml, as [mcp_servers.maestro] (the key from ${API_KEY_ENV})")

    claude = targets.add_parser(
        "claude-code",
        help="write the bridge into the env of Claude Code's settings.json "
        "($CLAUDE_CONFIG_DIR or ~/.claude)",
    )
    claude.add_argument(
        "--model",
        metavar="NAME",
        help="the model Claude Code uses, as the bridge lists it "
        "(default: the newest Claude sonnet or opus, else the first)",
    )
    claude.add_argument(
        "--small-model",
        metavar="NAME",
        help="a cheaper model, as the bridge lists it, for Claude Code's background requests "
        "(written as ANTHROPIC_SMALL_FAST_MODEL and ANTHROPIC_DEFAULT_HAIKU_MODEL)",
    )
    _add_root_url(claude)
    _add_common(claude, "written as ANTHROPIC_AUTH_TOKEN")
    _add_tools(
        claude,
        "the user-scope mcpServers of ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json), its "
        "Authorization header naming $MAESTRO_BRIDGE_API_KEY (Claude Code reads the key there)",
    )

    gemini = targets.add_parser(
        "gemini",
        help="write the bridge into Gemini CLI's .env and settings.json "
        "($GEMINI_CLI_HOME/.gemini or ~/.gemini)",
    )
    gemini.add_argument(
        "--model",
        metavar="NAME",
        help="the model Gemini CLI uses, as the bridge lists it "
        "(default: the newest Gemini pro, else the newest Gemini, else the first)",
    )
    gemini.add_argument(
        "--router-model",
        metavar="NAME",
        help="a cheaper model, as the bridge lists it, for Gemini CLI's model router and its "
        "other background requests (written in settings.json's modelConfigs.customOverrides)",
    )
    _add_root_url(gemini)
    _add_common(gemini, "written as GEMINI_API_KEY")
    _add_tools(
        gemini,
        "settings.json's mcpServers, its Authorization header naming $MAESTRO_BRIDGE_API_KEY "
        "(Gemini CLI reads the key there)",
    )

    for name, where, tools_where in (
        (
            "opencode",
            "OpenCode's opencode.json ($XDG_CONFIG_HOME/opencode or ~/.config/opencode)",
            "opencode.json's `mcp`, with the key as its Authorization header",
        ),
        (
            "qwen",
            "Qwen Code's settings.json ($QWEN_HOME or ~/.qwen)",
            "settings.json's mcpServers, with the key as its Authorization header",
        ),
    ):
        target = targets.add_parser(
            name, help=f"write the bridge (a provider with its models) into {where}"
        )
        target.add_argument(
            "--model",
            metavar="NAME",
            help="the model it uses, as the bridge lists it (default: the editor's first)",
        )
        _add_root_url(target)
        _add_common(target, "written into the same file")
        _add_tools(target, tools_where)


def _add_root_url(target: argparse.ArgumentParser) -> None:
    """`--url` (or `--base-url`): targets that take the bridge's root, with or without /v1."""
    target.add_argument(
        "--url",
        "--base-url",
        dest="url",
        type=_http_url,
        default=DEFAULT_ROOT,
        help=f"the running bridge, with or without /v1 (default {DEFAULT_ROOT})",
    )


def _add_common(target: argparse.ArgumentParser, key_use: str) -> None:
    target.add_argument(
        "--api-key",
        default=os.environ.get(API_KEY_ENV),
        help=f"the bridge's API key (default: ${API_KEY_ENV}, else the key `serve --tools` "
        f"keeps in its state folder's api-key file); {key_use}",
    )
    target.add_argument(
        "--dry-run", action="store_true", help="print what would change, write nothing"
    )
    target.add_argument("--json", action="store_true", help="print the outcome as JSON")


def _add_tools(target: argparse.ArgumentParser, where: str) -> None:
    target.add_argument(
        "--tools",
        action="store_true",
        help="also add the bridge's MCP server (the editor's tools and language features, "
        f"at the bridge's /mcp) under the name `maestro` to {where}",
    )


def _http_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(
            f"expected an http(s) URL such as {DEFAULT_ROOT}/v1, not {text!r}"
        )
    return text.rstrip("/")


def run_configure(args: argparse.Namespace) -> int:
    """Runs the chosen target and prints its outcome; the exit code."""
    from bridge.configure.report import print_outcome

    configure = _configure_function(args.target)
    url = args.base_url if args.target == "codex" else args.url
    from bridge.access.key_lookup import find_api_key

    # --api-key, else $MAESTRO_BRIDGE_API_KEY, else `serve`'s key file (docs/security.md).
    found = find_api_key(args.api_key or None, os.environ)
    api_key = found.key if found else None
    extra: dict[str, Any] = {"tools": args.tools}
    if args.target == "claude-code":
        extra["small_model"] = args.small_model
    elif args.target == "gemini":
        extra["router_model"] = args.router_model
    return print_outcome(
        lambda: configure(args.model, url, api_key, args.dry_run, os.environ, **extra),
        args.json,
    )


def _configure_function(target: str) -> Callable[..., Any]:
    """The target's `configure_*(model, url, api_key, dry_run, environ)`, imported now."""
    if target == "opencode":
        from bridge.configure.opencode_qwen_command import configure_opencode

        return configure_opencode
    if target == "qwen":
        from bridge.configure.opencode_qwen_command import configure_qwen

        return configure_qwen
    if target == "gemini":
        from bridge.configure.gemini_command import configure_gemini

        return configure_gemini
    if target == "claude-code":
        from bridge.configure.claude_command import configure_claude

        return configure_claude
    from bridge.configure.codex_command import configure_codex

    return configure_codex
