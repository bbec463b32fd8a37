"""`maestro/language` (docs/protocol.md, "Language features") answered over the headless
editor's in-memory workspace, as a Python language server would: problems, definitions,
references, hovers and symbols computed with `ast` (py_analysis.py)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from headless_editor.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from headless_editor.py_analysis import SOURCE, FileAnalysis, Problem, Symbol, signature_tail
from headless_editor.py_scopes import Binding, Occurrence
from headless_editor.py_text import Range, whole_word
from headless_editor.sim_workspace import SimWorkspace

Json = dict[str, Any]


def answer_language(workspace: SimWorkspace, params: Any) -> Json:
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "maestro/language params must be an object")
    feature = params.get("feature")
    if not isinstance(feature, str):
        raise RpcError(INVALID_PARAMS, "feature must be a string")
    answer = FEATURES.get(feature)
    if answer is None:
        raise RpcError(METHOD_NOT_FOUND, f"Unknown language feature {feature!r}")
    return answer(workspace, params)


# -- params ------------------------------------------------------------------------------------


def _file(workspace: SimWorkspace, params: Json) -> tuple[str, FileAnalysis]:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise RpcError(INVALID_PARAMS, f"{params['feature']} needs a uri")
    path = workspace.path_of(uri)
    if path is None:
        raise RpcError(INVALID_PARAMS, f"No such file in the workspace: {uri}")
    return uri, workspace.analysis.files[path]


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _occurrence(workspace: SimWorkspace, params: Json) -> tuple[FileAnalysis, Occurrence | None]:
    """The name at `position`; with `position.symbol`, that identifier's first whole-word
    occurrence on the line (-32602 when the line has none)."""
    uri, analysis = _file(workspace, params)
    position = params.get("position")
    if not isinstance(position, dict) or not _count(position.get("line")):
        raise RpcError(INVALID_PARAMS, f"{params['feature']} needs a position with a line")
    line: int = position["line"]
    symbol = position.get("symbol")
    if isinstance(symbol, str) and symbol:
        text = analysis.text.line(line) if line < len(analysis.text.lines) else ""
        found = re.search(whole_word(symbol), text)
        if found is None:
            # Said as people count lines (1-based): the message reaches an agent as is.
            raise RpcError(INVALID_PARAMS, f"Line {line + 1} of {uri} has no {symbol!r}")
        return analysis, analysis.occurrence_at(line, analysis.text.column(line, found.start()))
    if not _count(position.get("character")):
        raise RpcError(INVALID_PARAMS, "position needs a character or a symbol")
    return analysis, analysis.occurrence_at(line, position["character"])


def _location(workspace: SimWorkspace, path: str, where: Range) -> Json:
    return {"uri": workspace.uri_of(path), "range": where.to_json()}


# -- features ----------------------------------------------------------------------------------


def _workspace(workspace: SimWorkspace, params: Json) -> Json:
    return {"folders": [{"name": workspace.name, "uri": workspace.uri}]}


def _problem(problem: Problem) -> Json:
    return {
        "range": problem.range.to_json(),
        "severity": problem.severity,
        "message": problem.message,
        "source": SOURCE,
        "code": problem.code,
    }


def _diagnostics(workspace: SimWorkspace, params: Json) -> Json:
    """One file's problems (even none), or those of every file that has some."""
    if params.get("uri") is not None:
        uri, analysis = _file(workspace, params)
        return {"files": [{"uri": uri, "diagnostics": [_problem(p) for p in analysis.problems]}]}
    return {
        "files": [
            {"uri": workspace.uri_of(path), "diagnostics": [_problem(p) for p in analysis.problems]}
            for path, analysis in workspace.analysis.files.items()
            if analysis.problems
        ]
    }


def _definition(workspace: SimWorkspace, params: Json) -> Json:
    _, occurrence = _occurrence(workspace, params)
    if occurrence is None or occurrence.binding is None:
        return {"locations": []}
    origin = workspace.analysis.origin(occurrence.binding)
    if origin.role == "import":  # a module outside the workspace: no source to show
        return {"locations": []}
    return {"locations": [_location(workspace, origin.path, origin.site)]}


def _references(workspace: SimWorkspace, params: Json) -> Json:
    """Every use of the name, its definition included (as VS Code asks its providers)."""
    _, occurrence = _occurrence(workspace, params)
    if occurrence is None or occurrence.binding is None:
        return {"locations": []}
    origin = workspace.analysis.origin(occurrence.binding)
    found = workspace.analysis.references(origin)
    return {"locations": [_location(workspace, path, o.range) for path, o in found]}


def _hover(workspace: SimWorkspace, params: Json) -> Json:
    _, occurrence = _occurrence(workspace, params)
    if occurrence is None:
        return {"hovers": []}
    if occurrence.binding is None:
        what = "builtin" if occurrence.builtin else "undefined"
        contents = [_code(f"({what}) {occurrence.name}")]
    else:
        contents = _describe(workspace.analysis.origin(occurrence.binding))
    return {"hovers": [{"contents": contents, "range": occurrence.range.to_json()}]}


def _code(text: str) -> str:
    return f"```python\n{text}\n```"


def _describe(binding: Binding) -> list[str]:
    """Markdown of a name: its signature in a code block, then its docstring."""
    node = binding.node
    docstring: str | None = None
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        head = f"({binding.kind.lower()}) {keyword} {node.name}{signature_tail(node)}"
        docstring = ast.get_docstring(node)
    elif isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(base) for base in [*node.bases, *node.keywords])
        head = f"(class) class {node.name}" + (f"({bases})" if bases else "")
        docstring = ast.get_docstring(node)
    elif isinstance(node, ast.Module):
        head = f"(module) {binding.name}"
        docstring = ast.get_docstring(node)
    elif isinstance(node, ast.arg):
        note = f": {ast.unparse(node.annotation)}" if node.annotation is not None else ""
        head = f"(parameter) {binding.name}{note}"
    elif binding.role == "import" and binding.target is not None:
        target = binding.target
        dots = "." * target.level
        head = (
            f"(module) {dots}{target.module}"
            if target.name is None
            else f"(import) {target.name} from {dots}{target.module}"
        )
    else:
        head = f"({binding.kind.lower()}) {binding.name}"
    return [_code(head), docstring] if docstring else [_code(head)]


def _symbol(symbol: Symbol) -> Json:
    found: Json = {"name": symbol.name, "kind": symbol.kind, "range": symbol.range.to_json()}
    if symbol.detail:
        found["detail"] = symbol.detail
    found["children"] = [_symbol(child) for child in symbol.children]
    return found


def _document_symbols(workspace: SimWorkspace, params: Json) -> Json:
    _, analysis = _file(workspace, params)
    return {"symbols": [_symbol(symbol) for symbol in analysis.symbols]}


def _workspace_symbols(workspace: SimWorkspace, params: Json) -> Json:
    """Symbols whose name holds the query (case-insensitive; "" matches all)."""
    query = params.get("query")
    if not isinstance(query, str):
        raise RpcError(INVALID_PARAMS, "workspaceSymbols needs a query string")
    wanted = query.casefold()
    found: list[Json] = []

    def walk(path: str, symbols: list[Symbol], container: str) -> None:
        for symbol in symbols:
            if wanted in symbol.name.casefold():
                found.append(
                    {
                        "name": symbol.name,
                        "kind": symbol.kind,
                        "containerName": container,
                        "location": _location(workspace, path, symbol.range),
                    }
                )
            walk(path, symbol.children, symbol.name)

    for path, analysis in workspace.analysis.files.items():
        walk(path, analysis.symbols, "")
    return {"symbols": found}


FEATURES: dict[str, Callable[[SimWorkspace, Json], Json]] = {
    "workspace": _workspace,
    "diagnostics": _diagnostics,
    "definition": _definition,
    "references": _references,
    "hover": _hover,
    "documentSymbols": _document_symbols,
    "workspaceSymbols": _workspace_symbols,
}
