"""`serve --tools` wants a key: without `--api-key` it makes one in the state folder's
`api-key` file (owner-only, kept across restarts), and the MCP SDK and the MCP Inspector get
401 without it; `--no-key` turns that off on purpose and says so (docs/security.md)."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import httpx2
import pytest
from conftest import BridgeServer, StartServer
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_wire import mcp_url, wait_for_log
from processes import run
from test_mcp_inspector import AUTH_REQUIRED, INSPECTOR

from bridge.cli import main
from headless_editor.editor import HeadlessEditor


def printed(server: BridgeServer, text: str) -> None:
    """Waits for a line of serve's banner with `text` (it follows the "Listening" line)."""
    deadline = time.monotonic() + 10
    while not any(text in line for line in server.stdout_lines):
        assert time.monotonic() < deadline, server.stdout_lines
        time.sleep(0.05)


def serve(factory: StartServer, state: Path, *flags: str) -> BridgeServer:
    return factory("--tools", *flags, env={"XDG_STATE_HOME": str(state)})


async def tool_names(server: BridgeServer, key: str | None) -> list[str]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(mcp_url(server), http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]


def _statuses(error: BaseException) -> list[int]:
    """The HTTP statuses in an exception group the SDK raised."""
    found: list[int] = []
    for inner in getattr(error, "exceptions", [error]):
        if inner is not error and hasattr(inner, "exceptions"):
            found += _statuses(inner)
        data = getattr(getattr(inner, "error", None), "data", None)  # the SDK's MCPError
        if isinstance(data, dict) and "status" in data:
            found.append(data["status"])
    return found


async def test_serve_tools_makes_a_key_and_the_sdk_needs_it(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = serve(bridge_server_factory, tmp_path)
    key_file = tmp_path / "maestro-bridge" / "api-key"
    key = key_file.read_text().strip()
    if sys.platform != "win32":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    printed(server, str(key_file))
    assert not any(key in line for line in server.stdout_lines)  # where it is, never the key
    with pytest.raises(BaseException) as refused:
        await tool_names(server, None)
    assert 401 in _statuses(refused.value), refused.value
    assert "editor_definition" in await tool_names(server, key)
    # The same key guards the model endpoints once it exists.
    async with httpx2.AsyncClient(timeout=30) as http:
        assert (await http.get(f"{server.base_url}/models")).status_code == 401
        headers = {"Authorization": f"Bearer {key}"}
        assert (await http.get(f"{server.base_url}/models", headers=headers)).status_code == 200


async def test_the_key_is_kept_across_restarts(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    first = serve(bridge_server_factory, tmp_path)
    key = (tmp_path / "maestro-bridge" / "api-key").read_text().strip()
    first.process.terminate()
    first.process.wait(30)
    first.release()
    second = serve(bridge_server_factory, tmp_path)
    assert "sim_echo" in await tool_names(second, key)


def test_the_inspector_is_refused_without_the_generated_key(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    binary = INSPECTOR.or_skip()
    server = serve(bridge_server_factory, tmp_path / "state")
    key = (tmp_path / "state" / "maestro-bridge" / "api-key").read_text().strip()
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home), "NO_COLOR": "1"}
    command = [binary, "--cli", mcp_url(server), "--transport", "http", "--format", "json"]
    command += ["--stored-auth-only", "--method", "tools/list"]
    refused = run(command, timeout=60, env=env, cwd=tmp_path)
    assert refused.returncode == AUTH_REQUIRED, (refused.stdout, refused.stderr)
    header = ["--header", f"Authorization: Bearer {key}"]
    listed = run([*command, *header], timeout=60, env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "editor_diagnostics" in listed.stdout


async def test_no_key_is_an_explicit_choice_that_warns(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = serve(bridge_server_factory, tmp_path, "--no-key")
    assert not (tmp_path / "maestro-bridge" / "api-key").exists()
    printed(server, "WARNING: --no-key")
    wait_for_log(server, r"WARNING bridge\.mcp\.key_guard: Editor tools are served WITHOUT")
    assert "sim_echo" in await tool_names(server, None)


def test_no_key_with_a_key_is_a_usage_error(tmp_path: Path) -> None:
    done = run(
        [sys.executable, "-m", "bridge.cli", "serve", "--tools", "--no-key", "--api-key", "k"],
        timeout=60,
        env={**os.environ, "XDG_STATE_HOME": str(tmp_path)},
    )
    assert done.returncode == 2 and "--no-key" in done.stderr


def test_configure_finds_the_key_serve_made(
    bridge_server_factory: StartServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, home = tmp_path / "state", tmp_path / "home"
    home.mkdir()
    server = serve(bridge_server_factory, state)
    key = (state / "maestro-bridge" / "api-key").read_text().strip()
    for name, value in (("HOME", home), ("USERPROFILE", home), ("XDG_STATE_HOME", state)):
        monkeypatch.setenv(name, str(value))
    for name in ("CLAUDE_CONFIG_DIR", "MAESTRO_BRIDGE_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    # No --api-key, no variable: the key file (else the bridge's /models would answer 401).
    assert main(["configure", "claude-code", "--url", server.base_url, "--tools"]) == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["env"]["ANTHROPIC_AUTH_TOKEN"] == key


async def test_a_bridge_with_tools_and_no_key_refuses_every_mcp_request() -> None:
    """What another editor's client would get that turns tools on and sets no key: not the
    tools, but 401 naming the rule; the model endpoints stay as they were (no key set)."""
    editor = HeadlessEditor()
    try:
        api = await editor.start(
            {"port": 0, "tools": {"enable": True}, "usage": {"database": "none"}}
        )
        async with httpx2.AsyncClient(timeout=30) as http:
            refused = await http.post(api.removesuffix("/v1") + "/mcp", json={})
            assert refused.status_code == 401, refused.text
            assert refused.json()["error"]["data"]["code"] == "tools_need_key", refused.text
            assert "tools.requireKey" in refused.json()["error"]["message"]
            assert (await http.get(f"{api}/models")).status_code == 200
    finally:
        await editor.stop()
