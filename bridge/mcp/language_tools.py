"""The editor's language features as MCP tools: what the language servers the user already
runs know (the Problems panel, go to definition, references, symbols, hover), answered through
`maestro/language` and written for agents: workspace-relative paths, 1-based lines and columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bridge.core.backend import EditorError
from bridge.core.tool_host import ToolHost
from bridge.mcp.workspace_paths import PathError, Workspace

_PATH = {"type": "string", "description": "File path, relative to the workspace folder."}
_POSITION = {
    "type": "object",
    "properties": {
        "path": _PATH,
        "line": {"type": "integer", "minimum": 1, "description": "Line number, 1-based."},
        "column": {
            "type": "integer",
            "minimum": 1,
            "description": "Column, 1-based. Give this or `symbol`.",
        },
        "symbol": {
            "type": "string",
            "description": "An identifier on that line, used to find the column.",
        },
    },
    "required": ["path", "line"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class LanguageTool:
    name: str
    feature: str  # maestro/language's `feature`
    description: str
    input_schema: dict[str, Any]


LANGUAGE_TOOLS: tuple[LanguageTool, ...] = (
    LanguageTool(
        "editor_diagnostics",
        "diagnostics",
        "Problems (errors, warnings) the editor's language servers report, as in the "
        "editor's Problems panel: for one file, or for the whole workspace without `path`.",
        {
            "type": "object",
            "properties": {"path": _PATH},
            "additionalProperties": False,
        },
    ),
    LanguageTool(
        "editor_definition",
        "definition",
        "Where the symbol at a position is defined (go to definition).",
        _POSITION,
    ),
    LanguageTool(
        "editor_references",
        "references",
        "Every reference to the symbol at a position, across the workspace (find references).",
        _POSITION,
    ),
    LanguageTool(
        "editor_hover",
        "hover",
        "The editor's hover for a position: the symbol's type, signature and documentation.",
        _POSITION,
    ),
    LanguageTool(
        "editor_document_symbols",
        "documentSymbols",
        "The outline of a file: its classes, functions, methods and variables, with lines.",
        {
            "type": "object",
            "properties": {"path": _PATH},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    LanguageTool(
        "editor_workspace_symbols",
        "workspaceSymbols",
        "Symbols whose name matches a query, across the workspace (go to symbol in workspace).",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Part of a name."}},
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
)
BY_NAME = {tool.name: tool for tool in LANGUAGE_TOOLS}


async def run(host: ToolHost, tool: LanguageTool, arguments: dict[str, Any]) -> str:
    """The tool's answer as text; PathError for a path that names no file."""
    workspace = Workspace.from_editor(await host.language("workspace", {}))
    params: dict[str, Any] = {}
    if "path" in arguments:
        params["uri"] = workspace.uri_of(str(arguments["path"]))
    if "line" in arguments:
        column = arguments.get("column")
        position: dict[str, Any] = {"line": int(arguments["line"]) - 1}
        if arguments.get("symbol"):
            position["symbol"] = str(arguments["symbol"])  # the editor finds its column
        elif column is None:
            raise PathError("Give `column` or `symbol` with `line`.")
        else:
            position["character"] = int(column) - 1
        params["position"] = position
    if "query" in arguments:
        params["query"] = str(arguments["query"])
    answer = await host.language(tool.feature, params)
    try:
        return _WRITERS[tool.feature](answer, workspace, arguments)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise EditorError("Other", f"The editor sent a malformed {tool.feature} answer.") from None


def _where(workspace: Workspace, location: dict[str, Any]) -> str:
    start = location.get("range", {}).get("start", {})
    line, column = int(start.get("line", 0)) + 1, int(start.get("character", 0)) + 1
    return f"{workspace.path_of(str(location.get('uri', '')))}:{line}:{column}"


def _diagnostics(answer: dict[str, Any], workspace: Workspace, arguments: dict[str, Any]) -> str:
    lines: list[str] = []
    counts: dict[str, int] = {}
    files = sorted(answer.get("files") or [], key=lambda f: workspace.path_of(str(f.get("uri"))))
    for file in files:
        problems = sorted(
            file.get("diagnostics") or [],
            key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"]),
        )
        for problem in problems:
            severity = str(problem.get("severity", "error"))
            counts[severity] = counts.get(severity, 0) + 1
            origin = " ".join(str(problem[k]) for k in ("source", "code") if problem.get(k))
            where = _where(workspace, {"uri": file.get("uri"), "range": problem["range"]})
            lines.append(
                f"{where}: {severity}: {problem.get('message', '')}"
                + (f" [{origin}]" if origin else "")
            )
    scope = arguments.get("path") or "the workspace"
    if not lines:
        return f"No problems in {scope}."
    summary = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in sorted(counts.items()))
    return f"{summary} in {scope}:\n" + "\n".join(lines)


def _locations(what: str) -> Callable[[dict[str, Any], Workspace, dict[str, Any]], str]:
    def write(answer: dict[str, Any], workspace: Workspace, arguments: dict[str, Any]) -> str:
        found = [_where(workspace, loc) for loc in answer.get("locations") or []]
        if not found:
            return f"No {what} found."
        return "\n".join(found)

    return write


def _hover(answer: dict[str, Any], workspace: Workspace, arguments: dict[str, Any]) -> str:
    texts = [
        str(text) for hover in answer.get("hovers") or [] for text in hover.get("contents") or []
    ]
    texts = [text for text in texts if text.strip()]
    return "\n\n".join(texts) if texts else "No hover information."


def _outline(symbols: list[dict[str, Any]], depth: int, out: list[str]) -> None:
    for symbol in symbols:
        start = symbol.get("range", {}).get("start", {}).get("line", 0) + 1
        end = symbol.get("range", {}).get("end", {}).get("line", 0) + 1
        detail = f" {symbol['detail']}" if symbol.get("detail") else ""
        span = f"line {start}" if start == end else f"lines {start}-{end}"
        out.append(
            f"{'  ' * depth}{symbol.get('kind', '')} {symbol.get('name', '')}{detail} ({span})"
        )
        _outline(symbol.get("children") or [], depth + 1, out)


def _document_symbols(
    answer: dict[str, Any], workspace: Workspace, arguments: dict[str, Any]
) -> str:
    out: list[str] = []
    _outline(answer.get("symbols") or [], 0, out)
    return "\n".join(out) if out else f"No symbols in {arguments.get('path')}."


def _workspace_symbols(
    answer: dict[str, Any], workspace: Workspace, arguments: dict[str, Any]
) -> str:
    out = []
    for symbol in answer.get("symbols") or []:
        container = f" in {symbol['containerName']}" if symbol.get("containerName") else ""
        where = _where(workspace, symbol.get("location") or {})
        out.append(f"{symbol.get('kind', '')} {symbol.get('name', '')}{container}: {where}")
    return "\n".join(out) if out else f"No symbols match {arguments.get('query')!r}."


_WRITERS: dict[str, Callable[[dict[str, Any], Workspace, dict[str, Any]], str]] = {
    "diagnostics": _diagnostics,
    "definition": _locations("definition"),
    "references": _locations("references"),
    "hover": _hover,
    "documentSymbols": _document_symbols,
    "workspaceSymbols": _workspace_symbols,
}
