"""The MCP Inspector's CLI (npm `@modelcontextprotocol/inspector`, pinned and installed by
scripts/test) lists and calls the tools of a real `maestro-bridge serve --tools` over
Streamable HTTP: `mcp-inspector --cli URL --transport http --method tools/list` and
`--method tools/call --tool-name NAME --tool-arg key=value`, with the API key as a header.

The binary: $MAESTRO_MCP_INSPECTOR_BIN, else `<repo>/.cache/mcp-inspector` (where scripts/test
installs it), else `mcp-inspector` on PATH. Without one, the tests fail when $CI is set and are
skipped otherwise. Each run gets a HOME of its own (the CLI keeps a catalog under it)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runs import ClientBinary
from conftest import REPO_ROOT, BridgeServer, running_bridge_server
from mcp_wire import LANGUAGE_TOOLS, SIM_TOOLS, McpSession, log_count, mcp_url
from processes import run

INSPECTOR_VERSION = "2.12.0"
INSPECTOR_TIMEOUT = 60.0
INSPECTOR = ClientBinary(
    "MAESTRO_MCP_INSPECTOR_BIN",
    REPO_ROOT / ".cache" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector",
    "mcp-inspector",
    "The MCP Inspector",
    "npm install --prefix .cache/mcp-inspector "
    f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
)
# Exit codes of the CLI: 5 when the tool call failed or is unknown, 3 when refused for auth.
TOOL_FAILED = 5
AUTH_REQUIRED = 3
KEY = "inspector-key"

Inspect = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def binary() -> str:
    return INSPECTOR.or_skip()


@pytest.fixture(scope="module")
def server(binary: str) -> Iterator[BridgeServer]:
    with running_bridge_server("--tools", "--api-key", KEY) as started:
        yield started


@pytest.fixture
def inspect(binary: str, server: BridgeServer, tmp_path: Path) -> Inspect:
    """`inspect(*args)`: one CLI run against the server's /mcp, its CompletedProcess."""
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "USERPROFILE": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
        "NO_COLOR": "1",
    }

    def run_inspector(*args: str, key: str | None = KEY) -> subprocess.CompletedProcess[str]:
        command = [binary, "--cli", mcp_url(server), "--transport", "http", "--format", "json"]
        # Never an OAuth sign-in (it would wait for a browser): a refusal ends the run.
        command += ["--stored-auth-only"]
        if key is not None:
            command += ["--header", f"Authorization: Bearer {key}"]
        try:
            done = run([*command, *args], timeout=INSPECTOR_TIMEOUT, env=env, cwd=tmp_path)
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"the Inspector hung: {exc.stderr!r}\n{server.stderr_text()}")
        return done

    return run_inspector


def _json(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.stdout.strip(), f"no output (exit {done.returncode}):\n{done.stderr}"
    return json.loads(done.stdout)


def test_the_inspector_lists_the_tools(inspect: Inspect, server: BridgeServer) -> None:
    done = inspect("--method", "tools/list")
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in _json(done)["result"]["tools"]}
    assert list(tools) == LANGUAGE_TOOLS + SIM_TOOLS
    assert tools["sim_find_text"]["inputSchema"] == {
        "type": "object",
        "properties": {"pattern": {"type": "string", "description": "the text to find"}},
        "required": ["pattern"],
        "additionalProperties": False,
    }
    assert tools["editor_diagnostics"]["description"].startswith("Problems (errors, warnings)")
    # The stateless revision (MCP 2026-07-28: `server/discover`, no session) sees the same.
    modern = inspect("--method", "tools/list", "--protocol-era", "modern")
    assert modern.returncode == 0, modern.stderr
    assert _json(modern)["result"]["tools"] == list(tools.values())


def test_the_inspector_calls_a_simulated_tool(inspect: Inspect, server: BridgeServer) -> None:
    done = inspect(
        "--method", "tools/call", "--tool-name", "sim_find_text", "--tool-arg", "pattern=shout"
    )
    assert done.returncode == 0, done.stderr
    assert _json(done)["result"] == {
        "content": [
            {
                "type": "text",
                "text": "main.py:7: from util.text import shout\n"
                'main.py:12: print(shout("total: " + str(total_area(circles))))\n'
                "util/text.py:4: def shout(text: str) -> str:",
            }
        ],
        "isError": False,
    }
    assert log_count(server, r"Tool sim_find_text for inspector-cli: ok") == 1


def test_the_inspector_calls_language_tools(inspect: Inspect) -> None:
    # `--tool-arg line=12` is a string on the command line: the CLI sends the number the
    # tool's schema asks for.
    args = ("--tool-arg", "path=main.py", "line=12", "column=33")
    done = inspect("--method", "tools/call", "--tool-name", "editor_definition", *args)
    assert done.returncode == 0, done.stderr
    assert _json(done)["result"]["content"] == [{"type": "text", "text": "shapes.py:30:5"}]

    done = inspect("--method", "tools/call", "--tool-name", "editor_diagnostics")
    assert done.returncode == 0, done.stderr
    assert _json(done)["result"]["content"] == [
        {
            "type": "text",
            "text": "1 error, 1 warning in the workspace:\n"
            'main.py:3:8: warning: "os" is imported but never used [sim-python unused-import]\n'
            'main.py:13:11: error: "radius_of" is not defined [sim-python undefined-name]',
        }
    ]


def test_the_inspector_sees_tool_errors(inspect: Inspect, server: BridgeServer) -> None:
    failed = inspect(
        "--method", "tools/call", "--tool-name", "sim_fail", "--tool-arg", "message=no luck"
    )
    assert failed.returncode == TOOL_FAILED, failed.stderr
    assert _json(failed)["result"] == {
        "content": [{"type": "text", "text": "no luck"}],
        "isError": True,
    }
    unknown = inspect("--method", "tools/call", "--tool-name", "sim_nothing")
    assert unknown.returncode == TOOL_FAILED, unknown.stderr
    assert "tool_not_found" in unknown.stderr
    after = McpSession(server, "after-inspector", {"Authorization": f"Bearer {KEY}"})
    assert "sim_fail" in after.tool_names()  # still serving


def test_the_inspector_needs_the_key(inspect: Inspect) -> None:
    refused = inspect("--method", "tools/list", key="wrong-key")
    assert refused.returncode == AUTH_REQUIRED, refused.stderr
    assert "invalid_api_key" in refused.stderr and "auth_required" in refused.stderr
