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

import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from claude_code_cli import NO_RETRIES_ENV, claude_or_skip, run_claude
from conftest import StartServer
from request_recording import RecordingServer
from thread_server import serving

from bridge.anthropic.plan import parse_messages_request, plan_messages
from bridge.core.backend import ModelInfo
from bridge.core.tool_count import MAX_OFFERED_TOOLS

MCP_SERVER = Path(__file__).parent / "mcp_many_tools.py"
TOOL_COUNT = 150
PROBE = "mcp__many__probe_042"
_HOP_HEADERS = {"host", "content-length", "transfer-encoding", "connection"}


@dataclass
class RecordingProxy(RecordingServer):
    """Forwards every request to `target` as it came, recording it on the way."""

    target: str = ""

    async def anything_else(self, request: web.Request) -> web.Response:
        raw = await request.read()
        self._record(request, json.loads(raw) if raw else None)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        async with (
            aiohttp.ClientSession(auto_decompress=False) as session,
            session.request(
                request.method, self.target + request.path_qs, data=raw, headers=headers
            ) as upstream,
        ):
            body = await upstream.read()
            kept = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_HEADERS}
            return web.Response(status=upstream.status, body=body, headers=kept)

    def messages_bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.recorded() if r["path"].startswith("/v1/messages?")]


@contextlib.contextmanager
def recording_proxy(target: str) -> Iterator[RecordingProxy]:
    proxy = RecordingProxy(target=target)
    with serving(proxy.routed_app(), "recording-proxy") as url:
        proxy.base_url = url
        yield proxy


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
