"""`serve`'s web search flags (docs/web-search.md) and the `webSearch` options they make.

The key of Brave or Tavily is read from $MAESTRO_WEB_SEARCH_API_KEY, never from a flag (a
flag shows in the process list)."""

from __future__ import annotations

import argparse
from typing import Any

BACKENDS = ("searxng", "brave", "tavily", "tool")


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--web-search",
        choices=BACKENDS,
        metavar="BACKEND",
        help="run the clients' hosted web search tools (Claude Code's WebSearch, Codex's "
        "web_search, Gemini CLI's google_web_search) on BACKEND: searxng (with "
        "--web-search-url), brave or tavily (key in $MAESTRO_WEB_SEARCH_API_KEY), or tool "
        "(the editor's tool named by --web-search-tool); default: off, the tools are dropped",
    )
    serve.add_argument(
        "--web-search-url",
        metavar="URL",
        help="SearXNG's base URL (such as http://127.0.0.1:8888); for brave or tavily, "
        "another address of their API",
    )
    serve.add_argument(
        "--web-search-tool",
        metavar="NAME",
        help="the editor tool (vscode.lm.tools) that searches, for --web-search tool",
    )


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    if not args.web_search:
        return {}
    options: dict[str, Any] = {"backend": args.web_search}
    if args.web_search_url:
        options["url"] = args.web_search_url
    if args.web_search_tool:
        options["tool"] = args.web_search_tool
    return {"webSearch": options}


def needs_tls(argv: list[str]) -> bool:
    """Whether `serve ARGV` searches over https (Brave, Tavily, or an https:// URL), which
    needs the `ssl` module bridge/plain_http.py otherwise keeps out of the process."""
    for index, arg in enumerate(argv):
        value = arg.partition("=")[2] if "=" in arg else (argv[index + 1 : index + 2] or [""])[0]
        if arg.split("=")[0] == "--web-search" and value in ("brave", "tavily"):
            return True
        if arg.split("=")[0] == "--web-search-url" and value.lower().startswith("https:"):
            return True
    return False
