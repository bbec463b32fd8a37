"""What agents read: the language features written with workspace paths and 1-based lines
(bridge/mcp/language_tools.py), and results over the size bound cut with a note
(bridge/mcp/calls.py). The editor's answers here are the protocol's shapes (docs/protocol.md)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import mcp_types as types
import pytest

from bridge.core.backend import DataPart, EditorError, TextPart
from bridge.core.tool_host import ToolContent, ToolInfo
from bridge.mcp import language_tools
from bridge.mcp.calls import bounded
from bridge.mcp.workspace_paths import PathError

FOLDER = "file:///w/proj"


def span(line: int, character: int, end_line: int | None = None) -> dict[str, Any]:
    end = {"line": line if end_line is None else end_line, "character": character + 3}
    return {"start": {"line": line, "character": character}, "end": end}


class LanguageAnswers:
    """A ToolHost whose `maestro/language` answers are given by the test; it records what
    the bridge asked."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def language(self, feature: str, params: dict[str, Any]) -> dict[str, Any]:
        self.asked.append((feature, params))
        if feature == "workspace":
            return {"folders": [{"name": "proj", "uri": FOLDER}]}
        return self.answer

    async def list_tools(self) -> list[ToolInfo]:
        return []

    async def invoke_tool(self, name: str, arguments: dict[str, Any]) -> ToolContent:
        raise AssertionError("not a language feature")

    def on_tools_changed(self, listener: Callable[[], None]) -> None:
        pass


async def run(name: str, arguments: dict[str, Any], answer: dict[str, Any]) -> tuple[str, Any]:
    host = LanguageAnswers(answer)
    text = await language_tools.run(host, language_tools.BY_NAME[name], arguments)
    return text, host.asked[-1]


async def test_diagnostics_are_lines_an_agent_can_follow() -> None:
    answer = {
        "files": [
            {
                "uri": FOLDER + "/src/b.ts",
                "diagnostics": [
                    {
                        "range": span(9, 0),
                        "severity": "warning",
                        "message": "unused",
                        "source": "ts",
                        "code": "6133",
                    },
                    {
                        "range": span(2, 4),
                        "severity": "error",
                        "message": "Type 'string' is not assignable",
                        "source": "ts",
                        "code": "2322",
                    },
                ],
            },
            {
                "uri": FOLDER + "/a.py",
                "diagnostics": [
                    {"range": span(0, 0), "severity": "error", "message": "undefined name"}
                ],
            },
        ]
    }
    text, asked = await run("editor_diagnostics", {}, answer)
    assert asked == ("diagnostics", {})
    assert text.splitlines() == [
        "2 errors, 1 warning in the workspace:",
        "a.py:1:1: error: undefined name",
        "src/b.ts:3:5: error: Type 'string' is not assignable [ts 2322]",
        "src/b.ts:10:1: warning: unused [ts 6133]",
    ]
    text, asked = await run("editor_diagnostics", {"path": "a.py"}, {"files": []})
    assert asked == ("diagnostics", {"uri": FOLDER + "/a.py"})
    assert text == "No problems in a.py."


async def test_positions_go_to_the_editor_0_based_and_come_back_1_based() -> None:
    answer = {"locations": [{"uri": FOLDER + "/lib/util.py", "range": span(11, 4)}]}
    text, asked = await run(
        "editor_definition", {"path": "main.py", "line": 3, "column": 8}, answer
    )
    assert asked == (
        "definition",
        {"uri": FOLDER + "/main.py", "position": {"line": 2, "character": 7}},
    )
    assert text == "lib/util.py:12:5"
    text, asked = await run(
        "editor_references", {"path": "main.py", "line": 3, "symbol": "helper"}, {"locations": []}
    )
    assert asked == (
        "references",
        {"uri": FOLDER + "/main.py", "position": {"line": 2, "symbol": "helper"}},
    )
    assert text == "No references found."


async def test_a_position_needs_a_column_or_a_symbol() -> None:
    with pytest.raises(PathError, match="column"):
        await run("editor_hover", {"path": "main.py", "line": 3}, {})


async def test_hover_symbols_and_workspace_symbols() -> None:
    text, _ = await run(
        "editor_hover",
        {"path": "a.py", "line": 1, "column": 1},
        {"hovers": [{"contents": ["```python\ndef f(x: int) -> int\n```", "Doubles x."]}]},
    )
    assert text == "```python\ndef f(x: int) -> int\n```\n\nDoubles x."
    outline = {
        "symbols": [
            {
                "name": "Shop",
                "kind": "Class",
                "range": span(0, 0, 9),
                "children": [
                    {
                        "name": "total",
                        "kind": "Method",
                        "detail": "(self)",
                        "range": span(3, 4),
                        "children": [],
                    }
                ],
            }
        ]
    }
    text, _ = await run("editor_document_symbols", {"path": "shop.py"}, outline)
    assert text.splitlines() == ["Class Shop (lines 1-10)", "  Method total (self) (line 4)"]
    found = {
        "symbols": [
            {
                "name": "total",
                "kind": "Method",
                "containerName": "Shop",
                "location": {"uri": FOLDER + "/shop.py", "range": span(3, 8)},
            }
        ]
    }
    text, asked = await run("editor_workspace_symbols", {"query": "tot"}, found)
    assert asked == ("workspaceSymbols", {"query": "tot"})
    assert text == "Method total in Shop: shop.py:4:9"


async def test_a_malformed_answer_is_the_editors_failure() -> None:
    with pytest.raises(EditorError, match="malformed diagnostics"):
        await run(
            "editor_diagnostics",
            {},
            {"files": [{"uri": FOLDER + "/a.py", "diagnostics": [{"message": "no range"}]}]},
        )


def texts(content: list[Any]) -> list[str]:
    return [c.text if isinstance(c, types.TextContent) else f"<{c.mime_type}>" for c in content]


def test_a_result_over_the_bound_is_cut_with_a_note() -> None:
    parts: ToolContent = [TextPart(value="a" * 600), TextPart(value="b" * 600), TextPart(value="c")]
    content, cut = bounded(parts, 1000)
    assert cut
    shown = texts(content)
    assert shown[:2] == ["a" * 600, "b" * 400]
    assert shown[2] == (
        "[Maestro Bridge cut this result: it was 1201 characters, over the limit of 1000 "
        "(tools.maxResultChars).]"
    )


def test_a_result_within_the_bound_is_whole_and_data_is_converted() -> None:
    png = base64.b64encode(b"\x89PNG....").decode()
    parts: ToolContent = [
        TextPart(value="hi"),
        DataPart(mimeType="image/png", data=png),
        DataPart(mimeType="application/json", data=base64.b64encode(b'{"a": 1}').decode()),
        DataPart(mimeType="application/octet-stream", data=base64.b64encode(b"\0" * 30).decode()),
    ]
    content, cut = bounded(parts, 1000)
    assert not cut
    assert texts(content) == [
        "hi",
        "<image/png>",
        '{"a": 1}',
        "[30 bytes of application/octet-stream not shown]",
    ]
    huge: ToolContent = [DataPart(mimeType="image/png", data="A" * 5000)]
    content, cut = bounded(huge, 1000)
    assert cut and len(content) == 1 and "5000 characters" in texts(content)[0]
