"""Real Claude Code with an MCP server of 150 tools (tests/mcp_many_tools.py) through a real
`maestro-bridge serve`: more tools than the editor's models take in one request (128).

With its tool search on (its default), Claude Code sends its MCP tools' names only and loads
a tool with its ToolSearch, whose result holds `tool_reference` blocks; the bridge offers the
tool from then on, and the model's call of it reaches the MCP server. With the search turned
off (ENABLE_TOOL_SEARCH=false) it sends every tool at once: a clear 400 naming the limit.
A recording proxy between the CLI and the bridge keeps Claude Code's real requests, so the
test can say which tools the bridge offered for each.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from claude_code_cli import NO_RETRIES_ENV, claude_or_skip, run_claude
from conftest import StartServer
from recording_proxy import recording_proxy

from bridge.anthropic.plan import parse_messages_request, plan_messages
from bridge.core.backend import ModelInfo
from bridge.core.tool_count import MAX_OFFERED_TOOLS

MCP_SERVER = Path(__file__).parent / "mcp_many_tools.py"
TOOL_COUNT = 150
PROBE = "mcp__many__probe_042"


def mcp_config(tmp_path: Path) -> tuple[Path, Path]:
    """The `--mcp-config` file for the 150-tool server, and the log of the calls it ran."""
    calls = tmp_path / "calls.log"
    args = [str(MCP_SERVER), str(TOOL_COUNT), str(calls)]
    server = {"type": "stdio", "command": sys.executable, "args": args}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"many": server}}), encoding="utf-8")
    return config, calls


def offered(body: dict[str, Any]) -> list[str]:
    """The tools the bridge offers the editor for one of Claude Code's requests."""
    model = ModelInfo(id="sim-echo", maxInputTokens=1_000_000)
    return [t.name for t in plan_messages(parse_messages_request(body), model).chat.tools]


SCRIPT = {
    "rules": [
        {
            "match": "Use probe 42",
            "reply": [
                {
                    "type": "tool_call",
                    "name": "ToolSearch",
                    "arguments": {"query": f"select:{PROBE}", "max_results": 5},
                }
            ],
        },
        {
            "match": "Tool loaded",
            "reply": [{"type": "tool_call", "name": PROBE, "arguments": {"text": "ping"}}],
        },
        {"match": "probe_042 got ping", "reply": [{"type": "text", "text": "All done."}]},
    ]
}


def test_a_deferred_mcp_tool_is_found_by_search_and_called(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    claude = claude_or_skip()
    server = bridge_server_factory("--default-model", "sim-echo", script=SCRIPT)
    config, calls = mcp_config(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    with recording_proxy(server.root_url) as proxy:
        run = run_claude(
            claude,
            proxy.base_url,
            "Use probe 42.",
            cwd=workdir,
            home=tmp_path / "home",
            extra_args=("--mcp-config", str(config), "--allowedTools", "mcp__many"),
        )
        bodies = proxy.messages_bodies()
    assert run.returncode == 0, run.report
    assert "All done." in run.stdout, run.report
    # The MCP server ran the call the model made once the search had loaded the tool.
    ran = [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]
    assert ran == [{"name": "probe_042", "arguments": {"text": "ping"}}], run.report
    # Claude Code's own requests, as the bridge offered them to the editor.
    tools_each = [offered(body) for body in bodies if body.get("tools")]
    assert len(tools_each) >= 3, bodies
    assert all(len(tools) <= MAX_OFFERED_TOOLS for tools in tools_each)
    assert all("DeferredToolPlaceholder" not in tools for tools in tools_each)
    assert "ToolSearch" in tools_each[0] and PROBE not in tools_each[0]
    assert PROBE in tools_each[-1]


def test_without_tool_search_claude_code_is_told_the_128_limit(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    claude = claude_or_skip()
    server = bridge_server_factory("--default-model", "sim-echo")
    config, calls = mcp_config(tmp_path)
    workdir = tmp_path / "work"
    workdir.mkdir()
    run = run_claude(
        claude,
        server.root_url,
        "Say hello.",
        cwd=workdir,
        home=tmp_path / "home",
        extra_args=("--mcp-config", str(config)),
        env={"ENABLE_TOOL_SEARCH": "false", **NO_RETRIES_ENV},
        timeout=60,
    )
    assert run.returncode != 0, run.report
    assert "at most 128 tools" in run.stdout + run.stderr, run.report
    assert not calls.exists()
