"""The simulated language server's name binding beyond the sample workspace: `global`,
`:=` in a comprehension, `except ... as`, `case` captures, lambdas, aliased and relative
imports (headless_editor/py_scopes.py), asked through `maestro/language`."""

from __future__ import annotations

from typing import Any

import pytest
from editor_messages import Capture, connected, result

from headless_editor.editor import HeadlessEditor
from headless_editor.sim_workspace import SimWorkspace

CORE_URI = "file:///p/pkg/core.py"
HELPERS_URI = "file:///p/pkg/helpers.py"
CORE = '''"""A package's module."""

import json as j

from . import helpers
from .helpers import helper as assist

count = 0


def bump():
    global count
    count += 1
    return [last := n for n in range(count)], last, assist(), helpers.helper()


def parse(text):
    try:
        return j.loads(text)
    except ValueError as err:
        return str(err)


def pick(value):
    match value:
        case [first, *rest]:
            return first, rest
        case {"k": 1, **others}:
            return others
        case other:
            return other


square = lambda x: x * x  # noqa: E731
'''


@pytest.fixture
def editor() -> tuple[HeadlessEditor, Capture]:
    files = {"pkg/core.py": CORE, "pkg/helpers.py": "def helper():\n    return 1\n"}
    headless = HeadlessEditor(workspace=SimWorkspace(files, "p", "file:///p"))
    return headless, connected(headless)


async def ask(editor: tuple[HeadlessEditor, Capture], feature: str, line: int, name: str) -> Any:
    params = {"feature": feature, "uri": CORE_URI, "position": {"line": line, "symbol": name}}
    return await result(*editor, "maestro/language", params)


def spans(answer: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    """Locations as (file, line, start, end)."""
    return [
        (
            location["uri"].rsplit("/", 1)[1],
            location["range"]["start"]["line"],
            location["range"]["start"]["character"],
            location["range"]["end"]["character"],
        )
        for location in answer["locations"]
    ]


@pytest.mark.parametrize(
    ("line", "name", "expected"),
    [
        # `global count` and `count += 1` are the module's `count`.
        (11, "count", [(7, 0, 5), (11, 11, 16), (12, 4, 9), (13, 37, 42)]),
        # `:=` in a comprehension binds in the function around it.
        (13, "last", [(13, 12, 16), (13, 46, 50)]),
        (13, "n", [(13, 20, 21), (13, 26, 27)]),
        (18, "j", [(2, 15, 16), (18, 15, 16)]),  # `import json as j`
        (20, "err", [(19, 25, 28), (20, 19, 22)]),
        (26, "rest", [(25, 22, 26), (26, 26, 30)]),
        (28, "others", [(27, 24, 30), (28, 19, 25)]),
        (30, "other", [(29, 13, 18), (30, 19, 24)]),
        (33, "x", [(33, 16, 17), (33, 19, 20), (33, 23, 24)]),
    ],
)
async def test_references_follow_the_binding(
    editor: tuple[HeadlessEditor, Capture], line: int, name: str, expected: list[Any]
) -> None:
    found = spans(await ask(editor, "references", line, name))
    assert found == [("core.py", *where) for where in expected]


async def test_relative_imports_lead_to_the_package_s_files(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    assert spans(await ask(editor, "definition", 13, "assist")) == [("helpers.py", 0, 4, 10)]
    assert spans(await ask(editor, "definition", 13, "helpers")) == [("helpers.py", 0, 0, 0)]
    assert spans(await ask(editor, "definition", 18, "j")) == []  # json: not in the workspace
    hover = await ask(editor, "hover", 5, "assist")
    assert hover["hovers"][0]["contents"] == ["```python\n(function) def helper()\n```"]
    assert (await ask(editor, "hover", 18, "j"))["hovers"][0]["contents"] == [
        "```python\n(module) json\n```"
    ]


async def test_every_name_is_bound_so_nothing_is_reported(
    editor: tuple[HeadlessEditor, Capture],
) -> None:
    answer = await result(*editor, "maestro/language", {"feature": "diagnostics"})
    assert answer == {"files": []}
    one = {"feature": "diagnostics", "uri": CORE_URI}
    assert await result(*editor, "maestro/language", one) == {
        "files": [{"uri": CORE_URI, "diagnostics": []}]
    }
