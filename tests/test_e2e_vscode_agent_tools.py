"""Real agents use the editor's tools: Claude Code, Codex and Gemini CLI, each set up with
`maestro-bridge configure <agent> --api-key KEY --tools` (tests/agent_tool_runs.py), call a
tool the scripted-model test extension contributes to a real VS Code extension host
(code-server, headless, its bridge wanting a key), and each reads what VS Code's built-in
TypeScript language server says about a file of the workspace (`editor_diagnostics`). The
model is the real GitHub Copilot provider against a fake of its cloud (tests/copilot_host.py):
Claude Code on Claude, Codex on GPT-5 mini (Copilot's Responses API) behind the name Codex
asks for, Gemini CLI on Gemini.

    agent -> bridge (its dialect) -> extension -> vscode.lm -> Copilot -> fake CAPI: a call
    agent -> bridge /mcp -> extension -> vscode.lm.invokeTool / vscode.languages -> result
    agent -> bridge (the tool's result) -> Copilot -> fake CAPI: the answer

The fake cloud answers by the test's script (rules keyed on the prompt and on each tool
result's text, each answering once): a call of the tool, then, once the tool's result reached
the cloud, a text answer. Claude Code and Codex defer MCP tools behind their own tool search
(ToolSearch, tool_search) by default: the model calls the search first, then the tool it
loaded. Gemini CLI offers its MCP tools at once. What each agent sent is checked where it
arrived, at the fake cloud.

Fails under $CI and is skipped elsewhere when code-server or an agent is missing.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from agent_tool_runs import run_claude_code, run_codex, run_gemini_cli
from copilot_cloud import (
    CLAUDE,
    GEMINI,
    RESPONSES_MODEL,
    call_rule,
    nonce,
    scripted,
    sent_with,
    text_of,
    text_rule,
)
from copilot_host import running_copilot_host
from fake_capi import FakeCapi, Recorded
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from plain_http import post
from vscode_host import FIRST_WINDOW, VSCodeHost

pytestmark = pytest.mark.timeout(600)

# Codex asks for a model name it knows (configure codex writes gpt-5.5): the bridge answers it
# with the scripted model through this alias, as configure tells the user to set (Codex's
# tests stay on it: see their docstrings).
CODEX_MODEL = "gpt-5.5"
# The bridge wants a key, for its API and its MCP server alike; configure writes it.
KEY = "agent-tools-key-1"
SETTINGS = {
    "maestroBridge.tools.enable": True,
    # The test extension's tools are another extension's: offered only when named.
    "maestroBridge.tools.allow": ["@default", "maestro_test_*"],
    "maestroBridge.modelAliases": {CODEX_MODEL: RESPONSES_MODEL},
}


@pytest.fixture(scope="module")
def capi() -> Iterator[FakeCapi]:
    with FakeCapi() as fake:
        yield fake


@pytest.fixture(scope="module")
def vscode(capi: FakeCapi, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VSCodeHost]:
    """The Copilot host (copilot_fixtures' own), its bridge wanting KEY from the start."""
    with running_copilot_host(
        tmp_path_factory.mktemp("copilot"), capi, {**SETTINGS, "maestroBridge.apiKey": KEY}
    ) as host:
        yield host


TOOL = "maestro_test_lookup"
MARKER = "LOOKUP-MARKER alpha=first letter"  # what the tool returns for {"key": "alpha"}
# The tool's name as each agent offers it to the model (at the fake cloud).
CLAUDE_TOOL = f"mcp__maestro__{TOOL}"
CODEX_TOOL = f"mcp__maestro__{TOOL}"  # Codex's namespace `mcp__maestro`, flattened by the bridge
GEMINI_TOOL = f"mcp_maestro_{TOOL}"

# A TypeScript file with one type error, on line 4 where `count` starts (column 14).
GREET_TS = """export function greet(name: string): string {
  return `Hello, ${name}`;
}
export const count: number = greet("you");
"""
GREET_PATH = "src/greet.ts"
TYPE_ERROR = "src/greet.ts:4:14: error: Type 'string' is not assignable to type 'number'."
# A cold TypeScript server in code-server on a busy 2-core machine takes a while to load.
LANGUAGE_SERVER_TIMEOUT = 180.0
ANSWER = "Done with the tools."


def root_url(host: VSCodeHost) -> str:
    return host.base_url.removesuffix("/v1")


# The text the model gets last once Claude Code's ToolSearch loaded a tool: the "Tool loaded."
# Claude Code puts after such a result (the bridge's note for the result's `tool_reference`
# block, bridge/anthropic/blocks.py, comes before it; the fake skips Claude Code's reminders).
CLAUDE_LOADED = r"^Tool loaded\.?$"


# What the model gets once Codex's tool search ran, through Copilot: its `tool_search_output`
# (the fake cloud reads it as "Tools loaded ...: <the names Copilot parsed>"). Copilot parses
# the tools from the result's text as a JSON array of names, which the bridge's text for the
# search result is not, so the list is empty; on a model whose endpoint does not defer tools
# (GPT-5 mini) the loaded tool is still offered in the request's tools, and called.
CODEX_LOADED = r"^Tools loaded"


def tool_runs(host: VSCodeHost) -> list[dict[str, Any]]:
    """The extension's own record of its tool's invocations (test-fixtures tools.js)."""
    return [r for r in host.records("tool-invoked") if r["name"] == TOOL]


def turns(capi: FakeCapi, marker: str) -> list[Recorded]:
    """The agent's model turns of this run at the fake cloud: those offering tools."""
    return [r for r in sent_with(capi, marker) if r.body.get("tools")]


def tool_names(request: Recorded) -> list[str]:
    """The tools a request offered, by name, in any upstream API's shape."""
    return [str(t.get("name") or t.get("function", {}).get("name")) for t in request.body["tools"]]


def tool_results(request: Recorded) -> list[str]:
    """The text of each tool result a request carried, in any upstream API's shape."""
    body = request.body
    if "input" in body:  # Responses
        return [
            text_of(i["output"])
            for i in body["input"]
            if i.get("type") in ("function_call_output", "custom_tool_call_output")
        ]
    if request.path == "/v1/messages":
        return [
            text_of(b["content"])
            for m in body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        ]
    return [text_of(m["content"]) for m in body["messages"] if m["role"] == "tool"]


def test_the_mcp_server_wants_the_key(vscode: VSCodeHost) -> None:
    """Without the key the agents' configuration carries, /mcp refuses (as the API does)."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "no-key", "version": "1"},
        },
    }
    accept = {"accept": "application/json, text/event-stream"}
    refused = post(f"{root_url(vscode)}/mcp", initialize, headers=accept)
    assert refused.status_code == 401, refused.text


def test_claude_code_calls_the_extensions_tool(
    vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path
) -> None:
    """On Copilot's Claude: Claude Code defers its MCP tools behind its ToolSearch, so the
    model searches first, then calls the tool the search loaded."""
    before, marker = len(tool_runs(vscode)), nonce()
    search = {"query": f"select:{CLAUDE_TOOL}", "max_results": 5}
    rules = [
        call_rule(f"Look alpha up {marker}", "ToolSearch", search),
        call_rule(CLAUDE_LOADED, CLAUDE_TOOL, {"key": "alpha"}),
        text_rule(re.escape(MARKER), ANSWER),
    ]
    with scripted(capi, rules):
        run = run_claude_code(
            root_url(vscode),
            KEY,
            CLAUDE,
            f"Look alpha up {marker}.",
            tmp_path / "home",
            workdir(tmp_path),
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    assert run.stdout.strip() == ANSWER, report
    # The extension's tool ran once, with the model's input, in this run.
    assert [r["input"] for r in tool_runs(vscode)[before:]] == [{"key": "alpha"}], report
    # Claude Code deferred its MCP tools until its ToolSearch loaded the one called.
    sent = turns(capi, marker)
    assert "ToolSearch" in tool_names(sent[0]) and CLAUDE_TOOL not in tool_names(sent[0])
    assert CLAUDE_TOOL in tool_names(sent[-1]), tool_names(sent[-1])
    assert MARKER in tool_results(sent[-1])[-1], tool_results(sent[-1])


def test_codex_calls_the_extensions_tool(
    vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path
) -> None:
    """On Copilot's GPT-5 (Responses API): Codex defers its MCP tools behind its `tool_search`,
    which Copilot sends its cloud as `tool_search_call` and `tool_search_output` items; the
    model searches, then calls the tool the search loaded (offered in this request's tools)."""
    before, marker = len(tool_runs(vscode)), nonce()
    rules = [
        call_rule(f"Look alpha up {marker}", "tool_search", {"query": TOOL}),
        call_rule(CODEX_LOADED, CODEX_TOOL, {"key": "alpha"}),
        text_rule(re.escape(MARKER), ANSWER),
    ]
    with scripted(capi, rules):
        run = run_codex(
            vscode.base_url,
            KEY,
            CODEX_MODEL,
            f"Look alpha up {marker}.",
            tmp_path / "home",
            workdir(tmp_path),
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    assert run.stdout.strip() == ANSWER, report
    assert [r["input"] for r in tool_runs(vscode)[before:]] == [{"key": "alpha"}], report
    sent = turns(capi, marker)
    assert all(r.path == "/responses" for r in sent), [r.path for r in sent]
    assert CODEX_TOOL not in tool_names(sent[0]) and CODEX_TOOL in tool_names(sent[-1])
    kinds = [i.get("type") for i in sent[-1].body["input"]]
    assert "tool_search_call" in kinds and "tool_search_output" in kinds, kinds
    # Codex hands an MCP tool's text to the model as "Wall time: ...\nOutput:<text>".
    assert MARKER in tool_results(sent[-1])[-1], tool_results(sent[-1])


def test_gemini_cli_calls_the_extensions_tool(
    vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path
) -> None:
    before, marker = len(tool_runs(vscode)), nonce()
    rules = [
        call_rule(f"Look alpha up {marker}", GEMINI_TOOL, {"key": "alpha"}),
        text_rule(re.escape(MARKER), ANSWER),
    ]
    with scripted(capi, rules):
        run = run_gemini_cli(
            root_url(vscode),
            KEY,
            GEMINI,
            f"Look alpha up {marker}.",
            tmp_path / "home",
            workdir(tmp_path),
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    # Print mode prints the model's text of both turns.
    assert lines(run.stdout) == [f"Calling {GEMINI_TOOL}.", ANSWER], report
    assert [r["input"] for r in tool_runs(vscode)[before:]] == [{"key": "alpha"}], report
    sent = turns(capi, marker)
    # Offered at once, in the first request.
    assert GEMINI_TOOL in tool_names(sent[0]), report
    # Gemini CLI hands an MCP tool's text to the model inside <untrusted_context> tags.
    returned = f"<untrusted_context>\n{MARKER}\n</untrusted_context>"
    assert returned in tool_results(sent[-1])[-1], tool_results(sent[-1])


@pytest.fixture(scope="module")
def typescript_problem(vscode: VSCodeHost) -> str:
    """A TypeScript file with a type error, open in the editor; once TypeScript reported it,
    the path of the file (relative to the workspace)."""
    source = vscode.root / FIRST_WINDOW / GREET_PATH
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text(GREET_TS, encoding="utf-8")
    # TypeScript's server checks the files open in editor tabs, as a person has them.
    vscode.open_file(GREET_PATH)
    asyncio.run(wait_for_problem(vscode))
    return GREET_PATH


def test_claude_code_reads_typescripts_diagnostics(
    vscode: VSCodeHost, capi: FakeCapi, typescript_problem: str, tmp_path: Path
) -> None:
    """The type error, as VS Code's built-in TypeScript language features report it, reaches
    Claude Code on Copilot's Claude through the `editor_diagnostics` tool, with the path
    relative to the workspace and a 1-based line and column."""
    tool = "mcp__maestro__editor_diagnostics"
    marker = nonce()
    rules = [
        call_rule(
            f"Any problems {marker}", "ToolSearch", {"query": f"select:{tool}", "max_results": 5}
        ),
        call_rule(CLAUDE_LOADED, tool, {"path": typescript_problem}),
        text_rule(re.escape("[ts 2322]"), ANSWER),
    ]
    with scripted(capi, rules):
        run = run_claude_code(
            root_url(vscode),
            KEY,
            CLAUDE,
            f"Any problems {marker}?",
            tmp_path / "home",
            workdir(tmp_path),
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    assert run.stdout.strip() == ANSWER, report
    returned = tool_results(turns(capi, marker)[-1])[-1]
    assert TYPE_ERROR in returned, returned
    assert "[ts 2322]" in returned, returned  # the language server and its code


def test_codex_reads_typescripts_diagnostics(
    vscode: VSCodeHost, capi: FakeCapi, typescript_problem: str, tmp_path: Path
) -> None:
    """The type error reaches Codex on Copilot's GPT-5 through `editor_diagnostics`, loaded by
    Codex's tool search; Codex's own approval defaults run it (the editor_* tools are marked
    read-only)."""
    tool, marker = "mcp__maestro__editor_diagnostics", nonce()
    rules = [
        call_rule(f"Any problems {marker}", "tool_search", {"query": "editor_diagnostics"}),
        call_rule(CODEX_LOADED, tool, {"path": typescript_problem}),
        text_rule(re.escape("[ts 2322]"), ANSWER),
    ]
    home = tmp_path / "home"
    with scripted(capi, rules):
        run = run_codex(
            vscode.base_url,
            KEY,
            CODEX_MODEL,
            f"Any problems {marker}?",
            home,
            workdir(tmp_path),
            False,
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    assert run.stdout.strip() == ANSWER, report
    assert f"{TYPE_ERROR} [ts 2322]" in tool_results(turns(capi, marker)[-1])[-1], report


def test_gemini_cli_reads_typescripts_diagnostics(
    vscode: VSCodeHost, capi: FakeCapi, typescript_problem: str, tmp_path: Path
) -> None:
    tool, marker = "mcp_maestro_editor_diagnostics", nonce()
    rules = [
        call_rule(f"Any problems {marker}", tool, {"path": typescript_problem}),
        text_rule(re.escape(TYPE_ERROR), ANSWER),
    ]
    with scripted(capi, rules):
        run = run_gemini_cli(
            root_url(vscode),
            KEY,
            GEMINI,
            f"Any problems {marker}?",
            tmp_path / "home",
            workdir(tmp_path),
        )
    report = f"{run.report}\n{vscode.diagnostics()}"
    assert run.returncode == 0 and not run.timed_out, report
    assert lines(run.stdout) == [f"Calling {tool}.", ANSWER], report
    result = tool_results(turns(capi, marker)[-1])[-1]
    assert f"{TYPE_ERROR} [ts 2322]" in result, result


def lines(text: str) -> list[str]:
    """The non-blank lines of an agent's output, each stripped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def workdir(tmp_path: Path) -> Path:
    """The agent's working folder (not the editor's workspace: the tools reach that)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


async def wait_for_problem(host: VSCodeHost) -> None:
    """Until the bridge's editor_diagnostics has TypeScript's error (a cold language server
    takes a while), asked with the official MCP client, so that the agent's one run finds
    it."""
    deadline = time.monotonic() + LANGUAGE_SERVER_TIMEOUT
    text = ""
    while time.monotonic() < deadline:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}) as http,
            streamable_http_client(f"{root_url(host)}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("editor_diagnostics", {"path": GREET_PATH})
        assert isinstance(result, CallToolResult), result
        text = "".join(p.text for p in result.content if isinstance(p, TextContent))
        if TYPE_ERROR in text:
            return
        await asyncio.sleep(1)
    raise AssertionError(f"TypeScript never reported {TYPE_ERROR!r}: {text}\n{host.diagnostics()}")
