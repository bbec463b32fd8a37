"""Which tools are offered by default (bridge/mcp/tool_classes.py): the language tools and
VS Code's read-only built-ins; tools that run commands or change files only when named."""

from __future__ import annotations

import pytest

from bridge.mcp.tool_classes import offered

# VS Code 1.139's built-in tools that run commands or change files (its copilot extension's
# package.json and the workbench's own terminal and task tools).
WRITERS = [
    "run_in_terminal",
    "send_to_terminal",
    "create_and_run_task",
    "run_task",
    "copilot_applyPatch",
    "copilot_createFile",
    "copilot_createDirectory",
    "copilot_insertEdit",
    "copilot_replaceString",
    "copilot_multiReplaceString",
    "copilot_editNotebook",
    "copilot_runNotebookCell",
    "copilot_runVscodeCommand",
    "copilot_installExtension",
    "copilot_fetchWebPage",
    "vscode_editFile_internal",
    "vscode_renameSymbol",
    "runTests",
    "runSubagent",
    "get_terminal_output",
    "some_extension_tool",
]


@pytest.mark.parametrize("name", WRITERS)
def test_a_tool_that_runs_or_writes_is_not_offered_by_default(name: str) -> None:
    assert not offered(name, [], [])
    assert not offered(name, ["@default"], [])
    assert offered(name, ["@default", name], [])  # named: offered
    assert not offered(name, [name], [name])  # deny wins


@pytest.mark.parametrize(
    "name", ["editor_diagnostics", "editor_definition", "copilot_readFile", "copilot_findFiles"]
)
def test_language_and_read_only_tools_are_offered_by_default(name: str) -> None:
    assert offered(name, [], [])
    assert offered(name, ["@default", "run_in_terminal"], [])
    assert not offered(name, ["run_in_terminal"], [])  # an allow list without @default
    assert not offered(name, [], [name])


def test_a_stranger_tool_named_like_ours_is_not_in_the_default_set() -> None:
    assert not offered("editor_run_anything", [], [])
