"""The simulated language server's knowledge of a workspace of Python files, computed with
`ast`: for each file its names (py_scopes.py), problems and symbols; across files, where an
import leads. Positions are the editor protocol's (py_text.py)."""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field

from headless_editor.py_scopes import Binding, ImportTarget, Occurrence, ScopeWalker
from headless_editor.py_text import Range, SourceText

SOURCE = "sim-python"  # the `source` of the diagnostics, as a language server names itself


@dataclass(frozen=True)
class Problem:
    range: Range
    severity: str  # error, warning, information, hint
    message: str
    code: str


@dataclass
class Symbol:
    name: str
    kind: str
    range: Range
    detail: str | None = None
    children: list[Symbol] = field(default_factory=list)


class FileAnalysis:
    def __init__(self, path: str, source: str) -> None:
        self.path = path
        self.text = SourceText(source)
        self.problems: list[Problem] = []
        self.occurrences: list[Occurrence] = []
        self.symbols: list[Symbol] = []
        self.tree: ast.Module | None = None
        self.module = Binding(path, _module_name(path), "module", "Module", Range(0, 0, 0, 0))
        walker = ScopeWalker(path, self.text)
        try:
            self.tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            self.problems.append(self._syntax_problem(exc))
            self.names: dict[str, Binding] = {}
            return
        self.module.node = self.tree
        self.occurrences = walker.run(self.tree)
        self.names = walker.module.names
        self.symbols = self._symbols(self.tree.body, "module")
        self._name_problems()

    def _syntax_problem(self, exc: SyntaxError) -> Problem:
        line = max((exc.lineno or 1) - 1, 0)
        start = min(max((exc.offset or 1) - 1, 0), len(self.text.line(line)))
        end = (exc.end_offset or 0) - 1 if exc.end_lineno in (None, exc.lineno) else start
        where = self.text.span(line, start, max(end - start, 0))
        return Problem(where, "error", exc.msg, "syntax-error")

    def _name_problems(self) -> None:
        for occurrence in self.occurrences:
            binding = occurrence.binding
            if binding is None and not occurrence.builtin:
                message = f'"{occurrence.name}" is not defined'
                self.problems.append(Problem(occurrence.range, "error", message, "undefined-name"))
            elif (
                binding is not None
                and binding.role == "import"
                and binding.site == occurrence.range
                and binding.uses == 0
                and not self.path.endswith("__init__.py")  # a package's imports are its API
                and (binding.target is None or binding.target.module != "__future__")
            ):
                message = f'"{binding.name}" is imported but never used'
                self.problems.append(Problem(occurrence.range, "warning", message, "unused-import"))
        self.problems.sort(key=lambda p: (p.range.line, p.range.start))

    def _symbols(self, body: list[ast.stmt], container: str) -> list[Symbol]:
        """Classes, functions and methods with what they hold; variables of modules and
        classes (a function's locals are not its symbols)."""
        found: list[Symbol] = []
        seen: set[str] = set()
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                children = self._symbols(statement.body, "class")
                where = self.text.node_range(statement)
                found.append(Symbol(statement.name, "Class", where, None, children))
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "Method" if container == "class" else "Function"
                children = self._symbols(statement.body, "function")
                detail = signature_tail(statement)
                where = self.text.node_range(statement)
                found.append(Symbol(statement.name, kind, where, detail, children))
            elif isinstance(statement, ast.Assign | ast.AnnAssign) and container != "function":
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                for target in targets:
                    for name in _assigned_names(target):
                        if name.id not in seen:
                            seen.add(name.id)
                            kind = "Constant" if name.id.isupper() else "Variable"
                            found.append(Symbol(name.id, kind, self.text.name_at(name, name.id)))
            elif isinstance(statement, ast.If | ast.Try | ast.With | ast.For | ast.While):
                # Definitions under a compound statement belong to the level it stands at.
                for part in ("body", "orelse", "finalbody"):
                    found.extend(self._symbols(getattr(statement, part, []), container))
        return found

    def occurrence_at(self, line: int, character: int) -> Occurrence | None:
        """The name at a position: under the cursor, or just before it (the word's end)."""
        touching = [
            o
            for o in self.occurrences
            if o.range.line == line and o.range.start <= character <= o.range.end
        ]
        inside = [o for o in touching if character < o.range.end]
        return (inside or touching)[0] if touching else None


def _assigned_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _assigned_names(element)]
    return []


def _module_name(path: str) -> str:
    dotted = path.removesuffix(".py").replace("/", ".")
    return dotted.removesuffix(".__init__")


def signature_tail(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"({ast.unparse(node.args)}){returns}"


class WorkspaceAnalysis:
    """Every file's analysis, and imports followed across them."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = {path: FileAnalysis(path, source) for path, source in sorted(files.items())}

    def module_file(self, importer: str, target: ImportTarget) -> str | None:
        """The workspace file of an imported module, if the workspace has it."""
        parts = [part for part in target.module.split(".") if part]
        if target.level:
            base = posixpath.dirname(importer).split("/") if "/" in importer else []
            base = base[: len(base) - (target.level - 1)] if target.level > 1 else base
            parts = [*base, *parts]
        stem = "/".join(parts)
        for candidate in (f"{stem}.py", f"{stem}/__init__.py" if stem else "__init__.py"):
            if candidate in self.files:
                return candidate
        return None

    def origin(self, binding: Binding) -> Binding:
        """Where a name comes from: through imports of workspace modules to the definition;
        an import of anything else is its own origin."""
        seen: set[int] = set()
        while binding.target is not None and id(binding) not in seen:
            seen.add(id(binding))
            found = self._imported(binding.path, binding.target)
            if found is None:
                break
            binding = found
        return binding

    def _imported(self, importer: str, target: ImportTarget) -> Binding | None:
        path = self.module_file(importer, target)
        if target.name is None:
            return self.files[path].module if path is not None else None
        member = self.files[path].names.get(target.name) if path is not None else None
        if member is not None:
            return member
        submodule = ImportTarget(f"{target.module}.{target.name}", None, target.level)
        subpath = self.module_file(importer, submodule)  # `from package import module`
        return self.files[subpath].module if subpath is not None else None

    def references(self, origin: Binding) -> list[tuple[str, Occurrence]]:
        """Every occurrence, in every file, of the name that comes from `origin`."""
        found: list[tuple[str, Occurrence]] = []
        for path, analysis in self.files.items():
            for occurrence in analysis.occurrences:
                if occurrence.binding is not None and self.origin(occurrence.binding) is origin:
                    found.append((path, occurrence))
        return found
