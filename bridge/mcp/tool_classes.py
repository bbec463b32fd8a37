"""Which of the editor's tools are offered when `tools.allow` is empty: the bridge's language
tools and VS Code's built-in tools that only read. Everything else (tools that run commands or
change files, other extensions' tools, the MCP servers configured in VS Code) is offered only
when `tools.allow` names it (docs/editor-tools.md lists the built-in tools).

Read-only is decided by exact name, from the tools VS Code 1.139 lists in `vscode.lm.tools`
with its built-in Copilot (the `languageModelTools` of its `copilot` extension and the
workbench's own; docs/editor-tools.md has the whole list): `vscode.lm.tools`
exposes only a name, a description, a schema and tags, and an extension chooses its tags
freely, so a tag says nothing a stranger's tool could not also claim. A name VS Code later
gives a new tool is not offered until it is named here or in `tools.allow`.
"""

from __future__ import annotations

import fnmatch

from bridge.mcp.language_tools import LANGUAGE_TOOLS

# `@default` in tools.allow: the default set, so a user can add a tool without losing it.
DEFAULT_SET = "@default"
# The bridge's own language tools (editor_*): they read what the language servers know.
LANGUAGE_TOOL_NAMES = frozenset(tool.name for tool in LANGUAGE_TOOLS)

# VS Code's built-in tools that read the workspace or the editor's state and change nothing.
READ_ONLY_TOOLS = frozenset(
    {
        "copilot_readFile",  # a file's lines (VS Code asks before reading outside the workspace)
        "copilot_listDirectory",
        "copilot_findFiles",  # paths matching a glob
        "copilot_findTextInFiles",  # text or regex search
        "copilot_searchWorkspaceSymbols",
        "copilot_searchCodebase",  # semantic search of the workspace
        "copilot_getChangedFiles",  # git diffs of the workspace
        "copilot_getErrors",  # diagnostics
        "copilot_readProjectStructure",
        "copilot_findTestFiles",
        "copilot_getNotebookSummary",
        "copilot_readNotebookCellOutput",
        "copilot_viewImage",
        "copilot_getVSCodeAPI",  # VS Code's API documentation
        "vscode_listCodeUsages",  # references, definitions, implementations of a symbol
        "testFailure",  # the last test run's failures
    }
)


def in_default_set(name: str) -> bool:
    return name in LANGUAGE_TOOL_NAMES or name in READ_ONLY_TOOLS


def offered(name: str, allow: list[str], deny: list[str]) -> bool:
    """Deny wins; an empty allow list is the default set; `@default` adds it to the globs."""
    if any(fnmatch.fnmatchcase(name, glob) for glob in deny):
        return False
    if (not allow or DEFAULT_SET in allow) and in_default_set(name):
        return True
    return any(fnmatch.fnmatchcase(name, glob) for glob in allow if glob != DEFAULT_SET)
