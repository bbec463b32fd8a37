"""Name binding in one Python file, with `ast`: which scope binds each name and where every
name occurs, as Python resolves them (local, enclosing functions, module, builtins; class
bodies are skipped by the functions within them). What the simulated language features of
the headless editor are computed from."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from headless_editor.py_text import Range, SourceText

BUILTINS = frozenset(dir(builtins)) | {"__file__", "__path__", "__builtins__"}


@dataclass(frozen=True)
class ImportTarget:
    """What an import binds: module `module` (relative by `level`), or its member `name`."""

    module: str
    name: str | None
    level: int = 0


@dataclass(eq=False)
class Binding:
    """One name of one scope; its first binding site stands for its definition."""

    path: str
    name: str
    role: str  # "module", "class", "def", "param", "variable", "import"
    kind: str  # the SymbolKind name: Class, Function, Method, Variable, Constant, Module
    site: Range
    node: ast.AST | None = None
    target: ImportTarget | None = None
    uses: int = 0  # loads resolved to it in its own file


@dataclass(eq=False)
class Scope:
    kind: str  # "module", "class", "function", "comprehension"
    parent: Scope | None
    names: dict[str, Binding] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Occurrence:
    """A name in the text: bound to `binding`, a builtin, or (neither) undefined."""

    name: str
    range: Range
    binding: Binding | None
    builtin: bool = False


class ScopeWalker(ast.NodeVisitor):
    """Walks a module once, binding names as it goes; loads are resolved at the end, when
    every scope knows all its names (a function's local may be assigned after its use)."""

    def __init__(self, path: str, text: SourceText) -> None:
        self.path = path
        self.text = text
        self.module = Scope("module", None)
        self.scope = self.module
        self.occurrences: list[Occurrence] = []
        self._loads: list[tuple[Scope, str, Range]] = []

    def run(self, tree: ast.Module) -> list[Occurrence]:
        self.visit(tree)
        for scope, name, where in self._loads:
            binding = self.lookup(scope, name)
            if binding is not None:
                binding.uses += 1
            self.occurrences.append(
                Occurrence(name, where, binding, binding is None and name in BUILTINS)
            )
        self.occurrences.sort(key=lambda o: (o.range.line, o.range.start))
        return self.occurrences

    def lookup(self, scope: Scope, name: str) -> Binding | None:
        if name in scope.globals:
            return self.module.names.get(name)
        current: Scope | None = scope
        while current is not None:
            if (current is scope or current.kind != "class") and name in current.names:
                return current.names[name]
            current = current.parent
        return None

    # -- binding -----------------------------------------------------------------------------

    def _home(self, scope: Scope, name: str) -> Scope:
        """The scope a binding of `name` in `scope` lands in (`global`, `nonlocal`, `:=`)."""
        if name in scope.globals:
            return self.module
        if name in scope.nonlocals:
            outer = scope.parent
            while outer is not None and not (outer.kind == "function" and name in outer.names):
                outer = outer.parent
            return outer or self.module
        return scope

    def bind(
        self,
        name: str,
        where: Range,
        role: str,
        kind: str,
        node: ast.AST | None = None,
        target: ImportTarget | None = None,
        scope: Scope | None = None,
    ) -> None:
        home = self._home(scope or self.scope, name)
        binding = home.names.get(name)
        if binding is None:
            binding = Binding(self.path, name, role, kind, where, node, target)
            home.names[name] = binding
        self.occurrences.append(Occurrence(name, where, binding))

    def _variable_kind(self, name: str) -> str:
        constant = self.scope.kind in ("module", "class") and name.isupper()
        return "Constant" if constant else "Variable"

    @contextmanager
    def _inside(self, kind: str) -> Iterator[Scope]:
        outer = self.scope
        self.scope = Scope(kind, outer)
        try:
            yield self.scope
        finally:
            self.scope = outer

    # -- the nodes that bind or open scopes --------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        where = self.text.name_at(node, node.id)
        if isinstance(node.ctx, ast.Load):
            self._loads.append((self.scope, node.id, where))
        else:
            self.bind(node.id, where, "variable", self._variable_kind(node.id), node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope  # `:=` in a comprehension binds in the scope around it
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        name = node.target.id
        self.bind(name, self.text.name_at(node.target, name), "variable", "Variable", scope=scope)

    def _outer_parts(self, args: ast.arguments) -> None:
        """Defaults and annotations: evaluated in the scope that defines the function."""
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for arg in _all_args(args):
            if arg.annotation is not None:
                self.visit(arg.annotation)

    def _bind_args(self, args: ast.arguments) -> None:
        for arg in _all_args(args):
            self.bind(arg.arg, self.text.name_at(arg, arg.arg), "param", "Variable", arg)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._outer_parts(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        kind = "Method" if self.scope.kind == "class" else "Function"
        self.bind(node.name, self.text.name_after(node, r"\bdef\s+", node.name), "def", kind, node)
        with self._inside("function"):
            self._bind_args(node.args)
            for statement in node.body:
                self.visit(statement)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._outer_parts(node.args)
        with self._inside("function"):
            self._bind_args(node.args)
            self.visit(node.body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for outer in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(outer)
        self.bind(
            node.name, self.text.name_after(node, r"\bclass\s+", node.name), "class", "Class", node
        )
        with self._inside("class"):
            for statement in node.body:
                self.visit(statement)

    def _comprehension(self, node: ast.AST, generators: list[ast.comprehension]) -> None:
        self.visit(generators[0].iter)  # the first iterable is evaluated outside
        with self._inside("comprehension"):
            for index, generator in enumerate(generators):
                if index:
                    self.visit(generator.iter)
                self.visit(generator.target)
                for condition in generator.ifs:
                    self.visit(condition)
            for name in ("elt", "key", "value"):
                part = getattr(node, name, None)
                if isinstance(part, ast.AST):
                    self.visit(part)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, node.generators)

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self._comprehension(node, node.generators)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension(node, node.generators)

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, node.generators)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                name, module = alias.asname, alias.name
                where = self.text.last_name_in(alias, name)
            else:  # `import a.b` binds `a`
                name = module = alias.name.split(".")[0]
                where = self.text.name_at(alias, name)
            self.bind(name, where, "import", "Module", alias, ImportTarget(module, None))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue
            name = alias.asname or alias.name
            where = (
                self.text.last_name_in(alias, name)
                if alias.asname
                else self.text.name_at(alias, name)
            )
            target = ImportTarget(node.module or "", alias.name, node.level)
            self.bind(name, where, "import", "Variable", alias, target)

    def _declare(self, node: ast.Global | ast.Nonlocal, names: set[str], keyword: str) -> None:
        names.update(node.names)
        for name in node.names:  # each is a use of the outer name
            where = self.text.name_after(node, r"\b" + keyword + r"\s+(?:\w+\s*,\s*)*", name)
            self._loads.append((self.scope, name, where))

    def visit_Global(self, node: ast.Global) -> None:
        self._declare(node, self.scope.globals, "global")

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self._declare(node, self.scope.nonlocals, "nonlocal")

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            where = self.text.name_after(node, r"\bas\s+", node.name)
            self.bind(node.name, where, "variable", "Variable", node)
        for statement in node.body:
            self.visit(statement)

    def _capture(self, node: ast.pattern, name: str | None) -> None:
        """A name a `case` pattern binds."""
        self.generic_visit(node)
        if name:
            self.bind(name, self.text.last_name_in(node, name), "variable", "Variable", node)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self._capture(node, node.name)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self._capture(node, node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self._capture(node, node.rest)


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [arg for arg in (args.vararg, args.kwarg) if arg is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]
