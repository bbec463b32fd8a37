"""`maestro/language` answered by the headless editor over its in-memory workspace
(docs/protocol.md, "Language features"): every feature with its exact result, in the editor's
own positions (0-based lines, UTF-16 columns), and the protocol's errors."""

from __future__ import annotations

from typing import Any

import pytest
from editor_messages import Capture, connected, error, result

from headless_editor.editor import HeadlessEditor
from headless_editor.sim_workspace import SimWorkspace
from lsp.rpc import LANGUAGE

ROOT = "file:///sim-workspace"
MAIN = f"{ROOT}/main.py"
SHAPES = f"{ROOT}/shapes.py"
TEXT = f"{ROOT}/util/text.py"


@pytest.fixture
def editor() -> tuple[HeadlessEditor, Capture]:
    headless = HeadlessEditor()
    return headless, connected(headless)


async def ask(editor: tuple[HeadlessEditor, Capture], feature: str, **params: Any) -> Any:
    return await result(*editor, LANGUAGE, {"feature": feature, **params})


def at(line: int, symbol: str) -> dict[str, Any]:
    return {"line": line, "symbol": symbol}


def rng(line: int, start: int, end: int, end_line: int | None = None) -> dict[str, Any]:
    return {
        "start": {"line": line, "character": start},
        "end": {"line": line if end_line is None else end_line, "character": end},
    }


def loc(uri: str, line: int, start: int, end: int) -> dict[str, Any]:
    return {"uri": uri, "range": rng(line, start, end)}


def code(text: str) -> str:
    return f"```python\n{text}\n```"


async def test_workspace_names_its_folder(editor: tuple[HeadlessEditor, Capture]) -> None:
    assert await ask(editor, "workspace") == {"folders": [{"name": "sim-workspace", "uri": ROOT}]}


async def test_diagnostics_of_the_workspace_and_of_one_file(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    problems = [
        {
            "range": rng(2, 7, 9),
            "severity": "warning",
            "message": '"os" is imported but never used',
            "source": "sim-python",
            "code": "unused-import",
        },
        {
            "range": rng(12, 10, 19),
            "severity": "error",
            "message": '"radius_of" is not defined',
            "source": "sim-python",
            "code": "undefined-name",
        },
    ]
    everything = {"files": [{"uri": MAIN, "diagnostics": problems}]}
    assert await ask(editor, "diagnostics") == everything
    assert await ask(editor, "diagnostics", uri=None) == everything
    assert await ask(editor, "diagnostics", uri=MAIN) == everything
    assert await ask(editor, "diagnostics", uri=SHAPES) == {
        "files": [{"uri": SHAPES, "diagnostics": []}]
    }


async def test_definition_follows_imports_across_files(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    circle = {"locations": [loc(SHAPES, 17, 6, 12)]}
    assert await ask(editor, "definition", uri=MAIN, position=at(10, "Circle")) == circle
    # The same by column: inside the word, and just after it.
    for character in (15, 18, 21):
        position = {"line": 10, "character": character}
        assert await ask(editor, "definition", uri=MAIN, position=position) == circle
    shout = {"locations": [loc(TEXT, 3, 4, 9)]}
    assert await ask(editor, "definition", uri=MAIN, position=at(11, "shout")) == shout
    argv = {"locations": [loc(MAIN, 9, 9, 13)]}  # a use in a comprehension: the parameter
    assert await ask(editor, "definition", uri=MAIN, position=at(10, "argv")) == argv
    method = {"locations": [loc(SHAPES, 25, 8, 12)]}  # a definition is its own
    assert await ask(editor, "definition", uri=SHAPES, position=at(25, "area")) == method


async def test_no_definition_outside_the_workspace_or_off_a_name(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    nothing: dict[str, list[Any]] = {"locations": []}
    for position in (at(17, "sys"), at(12, "radius_of"), at(11, "print")):
        assert await ask(editor, "definition", uri=MAIN, position=position) == nothing
    blank = {"line": 10, "character": 2}
    assert await ask(editor, "definition", uri=MAIN, position=blank) == nothing
    past_the_end = {"line": 99, "character": 0}
    assert await ask(editor, "definition", uri=MAIN, position=past_the_end) == nothing


async def test_references_by_binding_across_files(editor: tuple[HeadlessEditor, Capture]) -> None:
    circle = [loc(MAIN, 5, 19, 25), loc(MAIN, 10, 15, 21), loc(SHAPES, 17, 6, 12)]
    assert await ask(editor, "references", uri=SHAPES, position=at(17, "Circle")) == {
        "locations": circle
    }
    circles = [loc(MAIN, 10, 4, 11), loc(MAIN, 11, 43, 50), loc(MAIN, 12, 20, 27)]
    assert await ask(editor, "references", uri=MAIN, position=at(12, "circles")) == {
        "locations": circles
    }
    sys_uses = [loc(MAIN, 3, 7, 10), loc(MAIN, 17, 4, 7), loc(MAIN, 17, 18, 21)]
    assert await ask(editor, "references", uri=MAIN, position=at(3, "sys")) == {
        "locations": sys_uses
    }


async def test_columns_count_utf16_code_units(editor: tuple[HeadlessEditor, Capture]) -> None:
    # Line 35: `return "≈ " + shape.name + " 📐 " + str(shape.area())`: the emoji is two
    # UTF-16 units (and four UTF-8 bytes, as `ast` counts), so the last `shape` is at 44.
    shape = [loc(SHAPES, 34, 13, 18), loc(SHAPES, 35, 18, 23), loc(SHAPES, 35, 44, 49)]
    assert await ask(editor, "references", uri=SHAPES, position=at(35, "shape")) == {
        "locations": shape
    }
    by_column = {"line": 35, "character": 46}
    assert await ask(editor, "definition", uri=SHAPES, position=by_column) == {
        "locations": [loc(SHAPES, 34, 13, 18)]
    }


async def test_hover_gives_signature_and_docstring(editor: tuple[HeadlessEditor, Capture]) -> None:
    cases = [
        (
            MAIN,
            at(11, "total_area"),
            [
                code("(function) def total_area(shapes: list[Shape]) -> float"),
                "The sum of the shapes' areas.",
            ],
            rng(11, 32, 42),
        ),
        (
            MAIN,
            {"line": 10, "character": 16},
            [code("(class) class Circle(Shape)"), "A circle of the given radius."],
            rng(10, 15, 21),
        ),
        (
            SHAPES,
            at(12, "area"),
            [code("(method) def area(self) -> float"), "The area in square units."],
            rng(12, 8, 12),
        ),
        (SHAPES, at(34, "shape"), [code("(parameter) shape: Shape")], rng(34, 13, 18)),
        (SHAPES, at(26, "PRECISION"), [code("(constant) PRECISION")], rng(26, 47, 56)),
        (MAIN, at(17, "sys"), [code("(module) sys")], rng(17, 4, 7)),
        (MAIN, at(11, "print"), [code("(builtin) print")], rng(11, 4, 9)),
        (MAIN, at(12, "radius_of"), [code("(undefined) radius_of")], rng(12, 10, 19)),
    ]
    for uri, position, contents, where in cases:
        hover = await ask(editor, "hover", uri=uri, position=position)
        assert hover == {"hovers": [{"contents": contents, "range": where}]}, position
    blank = await ask(editor, "hover", uri=MAIN, position={"line": 7, "character": 0})
    assert blank == {"hovers": []}


def symbol(
    name: str,
    kind: str,
    where: dict[str, Any],
    detail: str | None = None,
    children: list[Any] | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "kind": kind, "range": where}
    if detail is not None:
        found["detail"] = detail
    found["children"] = children or []
    return found


async def test_document_symbols_with_their_children(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    assert await ask(editor, "documentSymbols", uri=SHAPES) == {
        "symbols": [
            symbol("PRECISION", "Constant", rng(4, 0, 9)),
            symbol(
                "Shape",
                "Class",
                rng(7, 0, 18, 14),
                children=[
                    symbol("name", "Variable", rng(10, 4, 8)),
                    symbol("area", "Method", rng(12, 4, 18, 14), "(self) -> float"),
                ],
            ),
            symbol(
                "Circle",
                "Class",
                rng(17, 0, 57, 26),
                children=[
                    symbol("name", "Variable", rng(20, 4, 8)),
                    symbol(
                        "__init__", "Method", rng(22, 4, 28, 23), "(self, radius: float) -> None"
                    ),
                    symbol("area", "Method", rng(25, 4, 57, 26), "(self) -> float"),
                ],
            ),
            symbol("total_area", "Function", rng(29, 0, 48, 31), "(shapes: list[Shape]) -> float"),
            symbol("describe", "Function", rng(34, 0, 57, 35), "(shape: Shape) -> str"),
        ]
    }
    assert await ask(editor, "documentSymbols", uri=TEXT) == {
        "symbols": [symbol("shout", "Function", rng(3, 0, 29, 5), "(text: str) -> str")]
    }


async def test_workspace_symbols_match_a_substring(editor: tuple[HeadlessEditor, Capture]) -> None:
    area = await ask(editor, "workspaceSymbols", query="area")
    assert area == {
        "symbols": [
            {
                "name": "area",
                "kind": "Method",
                "containerName": "Shape",
                "location": {"uri": SHAPES, "range": rng(12, 4, 18, 14)},
            },
            {
                "name": "area",
                "kind": "Method",
                "containerName": "Circle",
                "location": {"uri": SHAPES, "range": rng(25, 4, 57, 26)},
            },
            {
                "name": "total_area",
                "kind": "Function",
                "containerName": "",
                "location": {"uri": SHAPES, "range": rng(29, 0, 48, 31)},
            },
        ]
    }
    circle = await ask(editor, "workspaceSymbols", query="CIRC")
    assert [(s["name"], s["kind"]) for s in circle["symbols"]] == [("Circle", "Class")]
    every = await ask(editor, "workspaceSymbols", query="")
    assert [s["name"] for s in every["symbols"]] == [
        "main",
        "PRECISION",
        "Shape",
        "name",
        "area",
        "Circle",
        "name",
        "__init__",
        "area",
        "total_area",
        "describe",
        "shout",
    ]
    assert await ask(editor, "workspaceSymbols", query="zebra") == {"symbols": []}


@pytest.mark.parametrize(
    ("params", "code_", "says"),
    [
        ({"feature": "definition", "uri": MAIN, "position": at(10, "shout")}, -32602, "no 'shout'"),
        ({"feature": "definition", "uri": MAIN, "position": at(10, "Circ")}, -32602, "no 'Circ'"),
        ({"feature": "hover", "uri": MAIN, "position": at(400, "x")}, -32602, "Line 401"),
        ({"feature": "hover", "uri": f"{ROOT}/nope.py", "position": at(1, "x")}, -32602, "nope.py"),
        ({"feature": "documentSymbols", "uri": "file:///elsewhere/main.py"}, -32602, "elsewhere"),
        ({"feature": "diagnostics", "uri": f"{ROOT}/util"}, -32602, "util"),
        ({"feature": "references", "uri": MAIN}, -32602, "position with a line"),
        (
            {"feature": "references", "uri": MAIN, "position": {"line": 1}},
            -32602,
            "a character or a symbol",
        ),
        ({"feature": "hover", "position": at(1, "x")}, -32602, "needs a uri"),
        ({"feature": "workspaceSymbols"}, -32602, "query string"),
        ({"feature": 3}, -32602, "feature must be a string"),
        ({"feature": "typeHierarchy", "uri": MAIN}, -32601, "typeHierarchy"),
    ],
)
async def test_errors_name_the_problem(
    editor: tuple[HeadlessEditor, Capture], params: dict[str, Any], code_: int, says: str
) -> None:
    failed = await error(*editor, LANGUAGE, params)
    assert failed["code"] == code_
    assert says in failed["message"]


async def test_params_that_are_not_an_object_are_invalid(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    assert (await error(*editor, LANGUAGE, ["hover"]))["code"] == -32602


SCOPES = """x = 1


class K:
    x = 2

    def f(self):
        return x


def counter():
    total = 0

    def bump():
        nonlocal total
        total += 1
        return total

    return bump


def broken(
"""


async def test_scopes_follow_python_s_rules() -> None:
    files = {"scopes.py": SCOPES.split("\n\ndef broken")[0] + "\n", "broken.py": SCOPES}
    headless = HeadlessEditor(workspace=SimWorkspace(files, "rules", "file:///rules"))
    out = connected(headless)
    editor = (headless, out)
    uri = "file:///rules/scopes.py"
    # A method's `x` is the module's, not the class body's.
    module_x = [loc(uri, 0, 0, 1), loc(uri, 7, 15, 16)]
    assert await ask(editor, "references", uri=uri, position=at(7, "x")) == {"locations": module_x}
    total = [loc(uri, 11, 4, 9), loc(uri, 14, 17, 22), loc(uri, 15, 8, 13), loc(uri, 16, 15, 20)]
    assert await ask(editor, "references", uri=uri, position=at(16, "total")) == {
        "locations": total
    }
    broken = await ask(editor, "diagnostics", uri="file:///rules/broken.py")
    assert broken["files"][0]["diagnostics"] == [
        {
            "range": rng(21, 10, 10),  # at the `(`, as Python reports it
            "severity": "error",
            "message": "'(' was never closed",
            "source": "sim-python",
            "code": "syntax-error",
        }
    ]
    assert await ask(editor, "diagnostics") == broken  # the other file has no problem
    assert await ask(editor, "documentSymbols", uri="file:///rules/broken.py") == {"symbols": []}
