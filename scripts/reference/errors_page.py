"""docs/reference/errors.md: every error code each dialect can answer, from the source
(error_sites.py) and the dialects' own envelope tables (the status -> Anthropic type and
Google status maps the bridge writes its errors with)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from scripts.reference.error_sites import Site, scan
from scripts.reference.markdown import NOTICE, table

# Where a module's codes are answered: by its folder under bridge/ (others: every dialect).
DIALECT_FOLDERS = {
    "responses": "OpenAI Responses (HTTP and WebSocket)",
    "chat": "Chat Completions",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini",
}
OTHER_ENDPOINTS = {
    "usage": "`GET /v1/usage` (OpenAI's envelope)",
    "mcp": "`/mcp`, the editor tools (a JSON-RPC error, the code in `error.data.code`)",
}
EVERY_DIALECT = "Every dialect"
HEADER = ["code", "status", "OpenAI `type`", "Anthropic `type`", "Gemini `status`", "raised in"]


def render(root: Path) -> str:
    result = scan(root)
    if result.unresolved:
        raise SystemExit("Error codes the scan cannot read:\n" + "\n".join(result.unresolved))
    groups: dict[str, dict[tuple[str, int | None, str], set[str]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for site in result.sites:
        groups[_group(site)][(site.code, site.status, site.type)].add(site.module)
    lines = [NOTICE, "", "# Error codes", "", *_intro()]
    order = [EVERY_DIALECT, *DIALECT_FOLDERS.values(), *OTHER_ENDPOINTS.values()]
    for title in order:
        if title in groups:
            lines += ["", f"## {title}", ""]
            lines += table(
                HEADER,
                [_row(key, modules) for key, modules in sorted(groups[title].items(), key=_order)],
            )
    return "\n".join(lines) + "\n"


def _group(site: Site) -> str:
    folder = site.module.split("/")[1]
    return DIALECT_FOLDERS.get(folder) or OTHER_ENDPOINTS.get(folder) or EVERY_DIALECT


def _order(item: tuple[tuple[str, int | None, str], set[str]]) -> tuple[str, int]:
    (code, status, _), _ = item
    return code, status or 0


def _row(key: tuple[str, int | None, str], modules: set[str]) -> list[str]:
    from bridge.anthropic.errors import error_type
    from bridge.gemini.errors import rpc_status

    code, status, type_ = key
    if status is None:
        shown, anthropic, gemini = "the service's 4xx", "by status", "by status"
    else:
        shown, anthropic, gemini = str(status), f"`{error_type(status)}`", f"`{rpc_status(status)}`"
    where = ", ".join(f"`{module}`" for module in sorted(modules))
    return [f"`{code}`", shown, f"`{type_}`", anthropic, gemini, where]


def _intro() -> list[str]:
    return [
        "Every error code the bridge answers with, read from its source: the codes of the "
        "shared core and HTTP layer, which every dialect answers, then each dialect's own. Each "
        "dialect writes the same error in its own envelope:",
        "",
        '- **OpenAI Responses, Chat Completions**: `{"error": {"message", "type", '
        '"param", "code"}}` with the HTTP status; a stream that has started ends with '
        '`response.failed` (Responses) or one `data: {"error": ...}` chunk (Chat Completions) '
        "carrying the code; a WebSocket turn gets an `error` event with `status` and `code`.",
        '- **Anthropic Messages**: `{"type": "error", "error": {"type", "message"}}`: '
        "no code; the `type` follows the status (the column below), and the message says what "
        "went wrong.",
        '- **Gemini**: `{"error": {"code": STATUS, "message", "status", "details"}}`: '
        "`status` is Google's name for the HTTP status (the column below).",
        "",
        "Which code means what, and what to do about it: [Troubleshooting](../troubleshooting.md).",
    ]
