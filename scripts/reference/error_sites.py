"""Every error code the bridge can answer, found in its source by reading it (`ast`).

There is no central list of codes: each module raises `ApiError(status, message, code=...)`,
or a helper that builds one. So this reads every module under bridge/ and collects each call
of an error constructor with its code and HTTP status:

- the constructors: `ApiError` (status: its first argument), `invalid_request` and
  `unsupported_parameter` (400), `JsonInputError` (a 400 once bridge/http/json_body.py reads
  it), and every function that passes its own `code` parameter on to one of them (found here,
  with its default code);
- a code is a string literal, a module constant (`CODE = "budget_exceeded"`, also imported),
  a name unpacked from a module-level table of `(status, type, code)` tuples
  (`EDITOR_ERRORS`), or a name looked up in a dict literal keyed by status.

A code given any other way (a call's result, an attribute: `exc.code`) forwards an error made
elsewhere. A code of a shape not listed here is reported in `unresolved`, which the tests keep
empty, so a new way of raising cannot drop a code from the reference unseen.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

# Constructor name -> fixed status (None: the status is the call's first argument).
BASE_CONSTRUCTORS: dict[str, int | None] = {
    "ApiError": None,
    "invalid_request": 400,
    "unsupported_parameter": 400,
    "JsonInputError": 400,
}
DEFAULT_TYPE = "invalid_request_error"  # ApiError's default `type`


@dataclass(frozen=True)
class Site:
    """One code a module can answer with."""

    code: str
    status: int | None  # None: decided at run time (the upstream's own 4xx, say)
    type: str  # the OpenAI envelope's `type`
    module: str  # bridge/core/errors.py


@dataclass
class Scan:
    sites: set[Site] = field(default_factory=set)
    unresolved: list[str] = field(default_factory=list)  # "module:line: what"


@dataclass
class _Constructor:
    status: int | None
    params: list[str]  # positional parameter names (to bind a positional `code`)
    default_code: str | None
    type: str | None = None  # the `type` a forwarding helper gives its ApiError


@dataclass
class _Module:
    path: str
    tree: ast.Module
    constants: dict[str, str] = field(default_factory=dict)
    tables: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (module, name)


def scan(root: Path) -> Scan:
    """Every code site under `root`/bridge (paths in the result relative to `root`)."""
    modules = {
        _dotted(path, root): _read(path, root) for path in sorted(root.glob("bridge/**/*.py"))
    }
    constructors = _constructors(modules)
    result = Scan()
    for name, module in modules.items():
        _collect(name, module, modules, constructors, result)
    return result


def _dotted(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _read(path: Path, root: Path) -> _Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = _Module(path.relative_to(root).as_posix(), tree)
    for node in tree.body:
        target, value = _assignment(node)
        if target is not None and isinstance(value, ast.Constant) and isinstance(value.value, str):
            module.constants[target] = value.value
        elif target is not None and isinstance(value, ast.Dict):
            rows = [_row(item) for item in value.values]
            if rows and all(row is not None for row in rows):
                module.tables[target] = [row for row in rows if row is not None]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                module.imports[alias.asname or alias.name] = (node.module, alias.name)
    return module


def _assignment(node: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (target.id if isinstance(target, ast.Name) else None), node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value
    return None, None


def _row(value: ast.expr) -> tuple[int, str, str] | None:
    """`(404, "invalid_request_error", "model_not_found")`: (status, type, code)."""
    if not isinstance(value, ast.Tuple) or len(value.elts) != 3:
        return None
    items = [elt.value if isinstance(elt, ast.Constant) else None for elt in value.elts]
    status, type_, code = items
    if isinstance(status, int) and isinstance(type_, str) and isinstance(code, str):
        return status, type_, code
    return None


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _constructors(modules: dict[str, _Module]) -> dict[str, _Constructor]:
    """The base constructors and every function forwarding its `code` parameter to one."""
    found = {name: _Constructor(status, [], None) for name, status in BASE_CONSTRUCTORS.items()}
    changed = True
    while changed:
        changed = False
        for module in modules.values():
            for node in ast.walk(module.tree):
                if not isinstance(node, ast.FunctionDef) or node.name in found:
                    continue
                made = _forwarder(node, found)
                if made is not None:
                    found[node.name] = made
                    changed = True
    return found


def _forwarder(func: ast.FunctionDef, known: dict[str, _Constructor]) -> _Constructor | None:
    params = [arg.arg for arg in func.args.posonlyargs + func.args.args]
    if "code" not in params + [arg.arg for arg in func.args.kwonlyargs]:
        return None
    for call in ast.walk(func):
        if not isinstance(call, ast.Call) or _callee(call) not in known:
            continue
        value = _code_argument(call, known[_callee(call) or ""])
        if isinstance(value, ast.Name) and value.id == "code":
            inner = known[_callee(call) or ""]
            return _Constructor(
                _status(call, inner), params, _default_code(func), _type(call, inner)
            )
    return None


def _default_code(func: ast.FunctionDef) -> str | None:
    positional = [arg.arg for arg in func.args.posonlyargs + func.args.args]
    with_defaults = positional[len(positional) - len(func.args.defaults) :]
    defaults = dict(zip(with_defaults, func.args.defaults, strict=True))
    defaults.update(
        (arg.arg, default)
        for arg, default in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True)
        if default is not None
    )
    value = defaults.get("code")
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def _code_argument(call: ast.Call, constructor: _Constructor) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "code":
            return keyword.value
    if "code" in constructor.params:
        index = constructor.params.index("code")
        if index < len(call.args):
            return call.args[index]
    return None


def _status(call: ast.Call, constructor: _Constructor) -> int | None:
    if constructor.status is not None or constructor.params:
        return constructor.status
    if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, int):
        return call.args[0].value
    return None


def _type(call: ast.Call, constructor: _Constructor) -> str:
    for keyword in call.keywords:
        if keyword.arg == "type" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return constructor.type or DEFAULT_TYPE


def _collect(
    name: str,
    module: _Module,
    modules: dict[str, _Module],
    constructors: dict[str, _Constructor],
    result: Scan,
) -> None:
    for func in [module.tree, *ast.walk(module.tree)]:
        if not isinstance(func, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own_params = _params(func)
        for call in _own_calls(func):
            callee = _callee(call)
            if callee not in constructors:
                continue
            constructor = constructors[callee or ""]
            value = _code_argument(call, constructor)
            if value is None:
                if constructor.default_code is not None:
                    result.sites.add(
                        Site(
                            constructor.default_code,
                            _status(call, constructor),
                            _type(call, constructor),
                            module.path,
                        )
                    )
                continue
            where = f"{module.path}:{call.lineno}"
            for code, status, type_ in _codes(
                value, call, constructor, func, module, modules, own_params, where, result
            ):
                result.sites.add(Site(code, status, type_, module.path))


def _params(func: ast.AST) -> set[str]:
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = func.args
    return {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}


def _own_calls(func: ast.AST) -> list[ast.Call]:
    """The calls in `func`'s own body, not in the functions defined inside it."""
    calls: list[ast.Call] = []
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            calls.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return calls


def _codes(
    value: ast.expr,
    call: ast.Call,
    constructor: _Constructor,
    func: ast.AST,
    module: _Module,
    modules: dict[str, _Module],
    params: set[str],
    where: str,
    result: Scan,
) -> list[tuple[str, int | None, str]]:
    status, type_ = _status(call, constructor), _type(call, constructor)
    if isinstance(value, ast.Constant):
        if value.value is None:
            return []
        return [(str(value.value), status, type_)]
    if isinstance(value, (ast.Attribute, ast.Call, ast.Subscript)):
        return []  # forwards the code of an error made elsewhere
    if not isinstance(value, ast.Name):
        result.unresolved.append(f"{where}: code={ast.unparse(value)}")
        return []
    if value.id in params:
        return []  # a forwarding helper's own parameter: its callers are the sites
    constant = _constant(value.id, module, modules)
    if constant is not None:
        return [(constant, status, type_)]
    local = _local_assignment(func, value.id)
    if local is not None:
        rows = _rows_of(local, module, modules)
        if rows is not None:
            return rows
    result.unresolved.append(f"{where}: code={value.id}")
    return []


def _constant(name: str, module: _Module, modules: dict[str, _Module]) -> str | None:
    if name in module.constants:
        return module.constants[name]
    source = module.imports.get(name)
    if source is not None and source[0] in modules:
        return modules[source[0]].constants.get(source[1])
    return None


def _local_assignment(func: ast.AST, name: str) -> ast.expr | None:
    """What `name` is assigned in `func` (`x = ...`, or `a, b, x = ...`)."""
    for node in ast.walk(func):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        if any(isinstance(item, ast.Name) and item.id == name for item in names):
            return node.value
    return None


def _rows_of(
    value: ast.expr, module: _Module, modules: dict[str, _Module]
) -> list[tuple[str, int | None, str]] | None:
    """Codes from a table lookup (`EDITOR_ERRORS[...]`) or a dict literal keyed by status
    (`{404: "not_found", ...}.get(status)`)."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        table = module.tables.get(value.value.id)
        source = module.imports.get(value.value.id)
        if table is None and source is not None and source[0] in modules:
            table = modules[source[0]].tables.get(source[1])
        if table is not None:
            return [(code, status, type_) for status, type_, code in table]
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "get"
        and isinstance(value.func.value, ast.Dict)
    ):
        rows: list[tuple[str, int | None, str]] = []
        for key, item in zip(value.func.value.keys, value.func.value.values, strict=True):
            status = key.value if isinstance(key, ast.Constant) else None
            code = item.value if isinstance(item, ast.Constant) else None
            if isinstance(status, int) and isinstance(code, str):
                rows.append((code, status, DEFAULT_TYPE))
        return rows
    return None
