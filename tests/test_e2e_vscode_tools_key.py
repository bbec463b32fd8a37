"""The editor's tools in a real VS Code (code-server) with nothing set but
`maestroBridge.tools.enable`: the extension makes an API key, keeps it in its secret storage
and hands it to the integrated terminals; the MCP SDK and the MCP Inspector get 401 without
it, and with the key a terminal has they list and call the tools. A path outside the
workspace is refused; a tool asking for confirmation shows VS Code's dialog, and a declined
one is a clear tool error; rotating makes a new key; `tools.requireKey: false` serves without
a key and says so in the status tooltip (docs/security.md).

Fails under $CI and is skipped elsewhere when code-server is missing, as the harness is.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from processes import run
from test_mcp_inspector import AUTH_REQUIRED, INSPECTOR
from vscode_host import VSCodeHost, host_fixture

pytestmark = pytest.mark.timeout(600)

vscode = host_fixture(
    {
        "maestroBridge.tools.enable": True,
        # The test extension's tools are another extension's: offered only when named.
        "maestroBridge.tools.allow": ["@default", "maestro_test_*"],
    }
)


def mcp_url(host: VSCodeHost) -> str:
    return host.base_url.removesuffix("/v1") + "/mcp"


def terminal_env(host: VSCodeHost, tmp_path: Path) -> tuple[str, str]:
    """What a shell started in VS Code's integrated terminal finds: the key and the URL."""
    out = tmp_path / f"terminal-{len(host.records('terminal-done'))}.txt"
    request = {"terminal": str(out)}
    answer = host.control_answer(host.send_control(request), request, 60)
    return str(answer["key"]), str(answer["url"])


async def session_do(host: VSCodeHost, key: str | None, action: Any) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120)) as http,
        streamable_http_client(mcp_url(host), http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await action(session)


async def names(host: VSCodeHost, key: str | None) -> list[str]:
    async def act(session: ClientSession) -> list[str]:
        return [tool.name for tool in (await session.list_tools()).tools]

    result: list[str] = await session_do(host, key, act)
    return result


async def call(host: VSCodeHost, key: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def act(session: ClientSession) -> CallToolResult:
        return await session.call_tool(name, arguments)

    result: CallToolResult = await session_do(host, key, act)
    return result


def text_of(result: CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


def statuses(error: BaseException) -> list[int]:
    """The HTTP statuses the SDK's MCPErrors carry, inside its exception groups."""
    found: list[int] = []
    for inner in getattr(error, "exceptions", [error]):
        if inner is not error and hasattr(inner, "exceptions"):
            found += statuses(inner)
        data = getattr(getattr(inner, "error", None), "data", None)
        if isinstance(data, dict) and "status" in data:
            found.append(data["status"])
    return found


async def assert_refused(host: VSCodeHost, key: str | None) -> None:
    with pytest.raises(BaseException) as refused:
        await names(host, key)
    assert 401 in statuses(refused.value), refused.value


def inspector(
    host: VSCodeHost, tmp_path: Path, key: str | None
) -> subprocess.CompletedProcess[str]:
    binary = INSPECTOR.or_skip()
    home = tmp_path / "inspector-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home), "NO_COLOR": "1"}
    command = [binary, "--cli", mcp_url(host), "--transport", "http", "--format", "json"]
    command += ["--stored-auth-only", "--method", "tools/list"]
    if key:
        command += ["--header", f"Authorization: Bearer {key}"]
    return run(command, timeout=60, env=env, cwd=tmp_path)


def restarted(host: VSCodeHost, seen: int) -> None:
    """Waits for the bridge to be ready again after a restart begun after `seen` states, and
    points the host at its URL."""

    def ready() -> str | None:
        states = [e["state"] for e in host.records("bridge-state")[seen:]]
        starts = [i for i, s in enumerate(states) if s["kind"] == "starting"]
        done = [s for s in states[starts[0] :] if s["kind"] == "ready"] if starts else []
        return str(done[-1]["url"]) if done else None

    host.base_url = host.wait_for(ready, 90, "the bridge to restart")


async def test_without_the_key_the_sdk_and_the_inspector_get_401(
    vscode: VSCodeHost, tmp_path: Path
) -> None:
    await assert_refused(vscode, None)
    await assert_refused(vscode, "a-guess")
    refused = inspector(vscode, tmp_path, None)
    assert refused.returncode == AUTH_REQUIRED, (refused.stdout, refused.stderr)


async def test_a_terminal_has_the_key_and_the_url_and_clients_call_with_them(
    vscode: VSCodeHost, tmp_path: Path
) -> None:
    key, url = terminal_env(vscode, tmp_path)
    assert len(key) >= 40 and url == vscode.base_url, (key, url)
    listed = await names(vscode, key)
    assert {"editor_definition", "maestro_test_lookup"} <= set(listed), listed
    result = await call(vscode, key, "maestro_test_lookup", {"key": "alpha"})
    assert not result.is_error and text_of(result) == "LOOKUP-MARKER alpha=first letter", result
    seen = inspector(vscode, tmp_path, key)
    assert seen.returncode == 0, seen.stderr
    assert "maestro_test_lookup" in seen.stdout


async def test_a_path_outside_the_workspace_is_refused(vscode: VSCodeHost, tmp_path: Path) -> None:
    key, _ = terminal_env(vscode, tmp_path)
    for path in ("/etc/hosts", "../outside.ts", "file:///etc/passwd"):
        result = await call(vscode, key, "editor_hover", {"path": path, "line": 1, "column": 1})
        assert result.is_error, result
        assert "outside the open workspace folders" in text_of(result), result


async def test_a_tool_asking_for_confirmation_shows_vscodes_dialog(
    vscode: VSCodeHost, tmp_path: Path
) -> None:
    key, _ = terminal_env(vscode, tmp_path)
    declined = asyncio.create_task(call(vscode, key, "maestro_test_confirm", {}))
    said = await asyncio.to_thread(vscode.click_dialog, "Cancel")
    assert "Run maestro_test_confirm?" in said and "CONFIRM-DETAIL-MARKER" in said, said
    result = await declined
    assert result.is_error, result
    assert "declined running maestro_test_confirm" in text_of(result), result
    assert not [r for r in vscode.records("tool-invoked") if r["name"] == "maestro_test_confirm"]

    accepted = asyncio.create_task(call(vscode, key, "maestro_test_confirm", {}))
    await asyncio.to_thread(vscode.click_dialog, "Yes")
    result = await accepted
    assert not result.is_error and text_of(result) == "CONFIRMED-MARKER", result


def show_status(host: VSCodeHost) -> str:
    """Show Status's message, as a person reads it before clicking Show Report."""
    request = {"command": "maestroBridge.showStatus"}
    request_id = host.send_control(request)
    said = host.click("Show Report")
    host.control_answer(request_id, request, 30)
    return said


async def test_show_status_says_where_the_key_is(vscode: VSCodeHost) -> None:
    said = show_status(vscode)
    assert "secret storage" in said and "$MAESTRO_BRIDGE_API_KEY" in said, said
    assert "Rotate API Key" in said, said


async def test_rotating_makes_a_new_key_and_the_old_one_stops_working(
    vscode: VSCodeHost, tmp_path: Path
) -> None:
    old, _ = terminal_env(vscode, tmp_path)
    seen = len(vscode.records("bridge-state"))
    vscode.run_command("maestroBridge.rotateApiKey")
    restarted(vscode, seen)
    new, _ = terminal_env(vscode, tmp_path)
    assert new and new != old
    await assert_refused(vscode, old)
    assert "maestro_test_lookup" in await names(vscode, new)


async def test_turning_the_key_off_serves_without_one_and_warns(
    vscode: VSCodeHost, tmp_path: Path
) -> None:
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.tools.requireKey": False})
    restarted(vscode, seen)
    assert "maestro_test_lookup" in await names(vscode, None)
    request = {"tooltip": True}
    tooltip = str(vscode.control_answer(vscode.send_control(request), request, 30)["tooltip"])
    assert "WARNING: Editor tools are served WITHOUT an API key" in tooltip, tooltip
    key, _ = terminal_env(vscode, tmp_path)
    assert key == "", key  # nothing to hand out
