"""The editor's tools over MCP in a real VS Code extension host (code-server, headless), with
`maestroBridge.tools.enable` on: the official `mcp` SDK's client, at the bridge's /mcp, lists
and calls the language model tools the scripted-model test extension contributes
(test-fixtures/scripted-model/tools.js), and reads what VS Code's built-in TypeScript language
server (code-server ships typescript-language-features) says about a file of the workspace.
The host is a Copilot host (tests/copilot_host.py), as a user's editor is: the real Copilot
provider and its own language model tools are there beside the test extension's.

    mcp client -> bridge /mcp (HTTP) -> lsp (stdio) -> extension -> vscode.lm.invokeTool,
                                                                    language commands

Fails under $CI and is skipped elsewhere when code-server is missing, as the harness is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx2
import pytest
from copilot_host import copilot_fixtures
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, ImageContent, TextContent
from vscode_host import FIRST_WINDOW, VSCodeHost

pytestmark = pytest.mark.timeout(600)

TIMEOUT_SECONDS = 10  # tools.timeoutSeconds: a tool call running longer is cancelled
KEY = "vscode-tools-key"
# The test extension's tools are another extension's: offered only when named
# (bridge/mcp/tool_classes.py), beside the default set.
capi, vscode = copilot_fixtures(
    {
        "maestroBridge.tools.enable": True,
        "maestroBridge.apiKey": KEY,
        "maestroBridge.tools.allow": ["@default", "maestro_test_*"],
        "maestroBridge.tools.timeoutSeconds": TIMEOUT_SECONDS,
    }
)

T = TypeVar("T")

# A TypeScript file with one type error (line 4, where `total` starts: column 14) and a call
# of `add` (line 5), whose name is defined on line 1 at column 17.
APP_TS = """export function add(a: number, b: number): number {
  return a + b;
}
export const total: number = "not a number";
console.log(add(1, 2), total);
"""
# The image maestro_test_parts answers (test-fixtures/scripted-model/tools.js).
PNG_BASE64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
TYPE_ERROR = "src/app.ts:4:14: error: Type 'string' is not assignable to type 'number'."
# A cold TypeScript server in code-server on a busy 2-core machine takes a while to load.
LANGUAGE_SERVER_TIMEOUT = 180.0


def mcp_url(host: VSCodeHost) -> str:
    return host.base_url.removesuffix("/v1") + "/mcp"


async def with_session(host: VSCodeHost, action: Callable[[ClientSession], Awaitable[T]]) -> T:
    """Runs `action` in a fresh MCP session with the bridge (initialized first)."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as http,
        streamable_http_client(mcp_url(host), http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await action(session)


async def call(host: VSCodeHost, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def act(session: ClientSession) -> CallToolResult:
        result = await session.call_tool(name, arguments)
        assert isinstance(result, CallToolResult), result
        return result

    return await with_session(host, act)


def text_of(result: CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


async def test_lists_the_extensions_tools_with_their_schemas(vscode: VSCodeHost) -> None:
    async def act(session: ClientSession) -> dict[str, Any]:
        return {tool.name: tool for tool in (await session.list_tools()).tools}

    tools = await with_session(vscode, act)
    lookup = tools["maestro_test_lookup"]
    assert lookup.description and "LOOKUP-MARKER" in lookup.description, lookup
    assert lookup.input_schema["required"] == ["key"], lookup
    assert lookup.input_schema["properties"]["key"]["type"] == "string", lookup
    assert {"maestro_test_throws", "maestro_test_wait"} <= tools.keys(), sorted(tools)
    # The language tools come along.
    assert {"editor_diagnostics", "editor_definition"} <= tools.keys(), sorted(tools)


async def test_the_default_set_reads_and_never_runs_commands_or_writes(
    vscode: VSCodeHost,
) -> None:
    """VS Code's own tools (real Copilot's and the workbench's): those that read are offered,
    those that run commands or change files are not, nor called, unless tools.allow names
    them (bridge/mcp/tool_classes.py)."""

    async def act(session: ClientSession) -> tuple[set[str], Any]:
        listed = {tool.name for tool in (await session.list_tools()).tools}
        try:
            await session.call_tool(
                "run_in_terminal", {"command": "touch pwned", "explanation": ""}
            )
        except Exception as refused:  # the SDK raises the JSON-RPC error
            return listed, refused
        return listed, None

    listed, refused = await with_session(vscode, act)
    assert {"copilot_readFile", "copilot_findTextInFiles", "vscode_listCodeUsages"} <= listed
    writers = {
        "run_in_terminal",
        "send_to_terminal",
        "run_task",
        "runTests",
        "copilot_createFile",
        "copilot_replaceString",
        "copilot_applyPatch",
        "vscode_editFile_internal",
        "copilot_runVscodeCommand",
        "copilot_installExtension",
    }
    assert not writers & listed, sorted(writers & listed)
    assert refused is not None and "tools.allow" in str(refused), refused


async def test_a_call_returns_the_tools_text(vscode: VSCodeHost) -> None:
    result = await call(vscode, "maestro_test_lookup", {"key": "alpha"})
    assert not result.is_error, result
    assert text_of(result) == "LOOKUP-MARKER alpha=first letter", result
    invoked = vscode.records("tool-invoked")
    assert invoked[-1]["name"] == "maestro_test_lookup", invoked
    assert invoked[-1]["input"] == {"key": "alpha"}, invoked


async def test_every_kind_of_result_part_comes_through(vscode: VSCodeHost) -> None:
    result = await call(vscode, "maestro_test_parts", {})
    assert not result.is_error, result
    texts = [part.text for part in result.content if isinstance(part, TextContent)]
    # A prompt-tsx part arrives as the text it renders (as VS Code shows it), not its tree.
    assert texts == ["parts:", "TSX-MARKER"], result
    [image] = [part for part in result.content if isinstance(part, ImageContent)]
    assert (image.mime_type, image.data) == ("image/png", PNG_BASE64), result


async def test_a_tool_that_throws_is_a_tool_error_and_the_server_serves_on(
    vscode: VSCodeHost,
) -> None:
    async def act(session: ClientSession) -> tuple[CallToolResult, CallToolResult]:
        failed = await session.call_tool("maestro_test_throws", {})
        after = await session.call_tool("maestro_test_lookup", {"key": "omega"})
        assert isinstance(failed, CallToolResult) and isinstance(after, CallToolResult)
        return failed, after

    failed, after = await with_session(vscode, act)
    assert failed.is_error, failed
    assert "maestro_test_throws failed on purpose" in text_of(failed), failed
    assert not after.is_error and text_of(after) == "LOOKUP-MARKER omega=last letter", after


async def test_a_call_past_the_timeout_is_cancelled_in_the_editor(vscode: VSCodeHost) -> None:
    before = len(vscode.records("tool-cancelled"))
    result = await call(vscode, "maestro_test_wait", {"seconds": 120})
    assert result.is_error, result
    # The bridge's $/cancelRequest reached the tool's cancellation token.
    vscode.wait_for(
        lambda: len(vscode.records("tool-cancelled")) > before, 30, "the tool to be cancelled"
    )
    assert not vscode.records("tool-waited"), vscode.records("tool-waited")


def write_app(host: VSCodeHost) -> None:
    """The TypeScript file, open in an editor tab as the user's work is: VS Code's TypeScript
    server reports problems only of files open in tabs (unless the user turns on its
    experimental project-wide diagnostics)."""
    folder = host.root / FIRST_WINDOW / "src"
    folder.mkdir(exist_ok=True)
    (folder / "app.ts").write_text(APP_TS, encoding="utf-8")
    host.open_file("src/app.ts")


async def poll(
    host: VSCodeHost, name: str, arguments: dict[str, Any], wanted: str
) -> CallToolResult:
    """Calls a language tool until its text has `wanted` (the language server is still
    loading at first)."""
    deadline = time.monotonic() + LANGUAGE_SERVER_TIMEOUT
    while True:
        result = await call(host, name, arguments)
        if wanted in text_of(result) or time.monotonic() > deadline:
            return result
        await asyncio.sleep(1)


async def test_typescript_diagnostics_reach_the_agent(vscode: VSCodeHost) -> None:
    write_app(vscode)
    result = await poll(vscode, "editor_diagnostics", {"path": "src/app.ts"}, TYPE_ERROR)
    text = text_of(result)
    assert not result.is_error, result
    assert TYPE_ERROR in text, f"{text}\n{vscode.diagnostics()}"
    # The problem names its language server and its code.
    assert "[ts 2322]" in text, text
    # The whole workspace's problems have it too.
    everywhere = await call(vscode, "editor_diagnostics", {})
    assert TYPE_ERROR in text_of(everywhere), everywhere


async def test_definition_by_symbol_from_typescript(vscode: VSCodeHost) -> None:
    write_app(vscode)
    arguments = {"path": "src/app.ts", "line": 5, "symbol": "add"}
    result = await poll(vscode, "editor_definition", arguments, "src/app.ts:1:17")
    assert not result.is_error, result
    assert text_of(result) == "src/app.ts:1:17", f"{text_of(result)}\n{vscode.diagnostics()}"


async def test_references_hover_and_symbols_from_typescript(vscode: VSCodeHost) -> None:
    write_app(vscode)
    at_add = {"path": "src/app.ts", "line": 1, "symbol": "add"}
    references = await poll(vscode, "editor_references", at_add, "src/app.ts:5:13")
    assert text_of(references).splitlines() == ["src/app.ts:1:17", "src/app.ts:5:13"], references
    at_total = {"path": "src/app.ts", "line": 4, "column": 14}
    hover = await poll(vscode, "editor_hover", at_total, "const total: number")
    assert "const total: number" in text_of(hover), hover
    outline = await poll(vscode, "editor_document_symbols", {"path": "src/app.ts"}, "add")
    assert "Function add (lines 1-3)" in text_of(outline).splitlines(), outline
    found = await poll(vscode, "editor_workspace_symbols", {"query": "add"}, "src/app.ts:1:")
    assert any(
        line.startswith("Function add") and "src/app.ts:1:" in line
        for line in text_of(found).splitlines()
    ), found


async def test_a_missing_file_is_a_tool_error_naming_it(vscode: VSCodeHost) -> None:
    result = await call(vscode, "editor_document_symbols", {"path": "src/missing.ts"})
    assert result.is_error, result
    assert "missing.ts" in text_of(result), result
