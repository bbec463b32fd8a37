"""Each real client reads the MCP server `configure TARGET --tools` wrote, in a temporary HOME.

`configure` runs against a real `serve` that wants an API key; then, with nothing of the
developer's own setup in their environment, `claude mcp get maestro`, `codex mcp list --json`
and `gemini mcp list` must show the server `maestro` at the bridge's /mcp, as a user-scope
(global) Streamable HTTP server, with the key as Claude Code sends it and the variable Codex
reads it from. Claude Code and Gemini CLI connect to the servers they list: against a small
server that stands in for the bridge (it lists models as the bridge does and records every
other request), their first request to /mcp must carry the key. (Whether the tools answer is
the MCP server's own tests' job.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import processes
import pytest
from claude_code_cli import CLAUDE
from claude_code_cli import OFFLINE_ENV as CLAUDE_OFFLINE_ENV
from cli_runs import CODEX, client_env
from conftest import BridgeServer, running_bridge_server
from gemini_cli import CLEARED_ENV_PREFIXES as GEMINI_CLEARED
from gemini_cli import GEMINI
from gemini_cli import OFFLINE_ENV as GEMINI_OFFLINE_ENV
from recording_server import recording_server

from bridge.cli import main
from bridge.configure.mcp_server import MCP_PATH

KEY = "tools-cli-key-1"
TIMEOUT = 90.0
# The variables of every client's own setup: none may point it at other files or servers.
CLEARED = (
    "ANTHROPIC_",
    "CLAUDE",
    "CODEX_",
    "OPENAI_",
    "MAESTRO_BRIDGE",
    "AWS_BEARER_TOKEN_BEDROCK",
    *GEMINI_CLEARED,
)


@pytest.fixture(scope="module")
def keyed_bridge() -> Iterator[BridgeServer]:
    with running_bridge_server("--api-key", KEY) as server:
        yield server


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with recording_server(["sim-echo"]) as started:
        yield started


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("USERPROFILE", str(folder))
    for name in os.environ:
        if name.startswith(CLEARED):
            monkeypatch.delenv(name)
    return folder


def configure(target: str, server: BridgeServer | str) -> None:
    """`configure TARGET --tools` with the key, for a bridge (or a stand-in's /v1 URL)."""
    url = server if isinstance(server, str) else server.base_url
    url_option = "--base-url" if target == "codex" else "--url"
    assert main(["configure", target, url_option, url, "--api-key", KEY, "--tools"]) == 0


def run_client(
    binary: str, args: list[str], home: Path, extra: dict[str, str], stream: str = "stdout"
) -> str:
    """`binary ARGS` in `home/work` with HOME=`home`; what it printed on `stream`."""
    env = client_env(CLEARED, {"HOME": str(home), "USERPROFILE": str(home)}, extra)
    result = processes.run([binary, *args], cwd=home / "work", env=env, timeout=TIMEOUT)
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, report
    return str(getattr(result, stream))


@pytest.mark.parametrize("old_install", [False, True], ids=["claude-json", "old-config-json"])
def test_claude_code_lists_the_bridge_as_a_user_http_server_with_the_key(
    keyed_bridge: BridgeServer, home: Path, old_install: bool
) -> None:
    claude = CLAUDE.or_skip()
    if old_install:  # an old install's ~/.claude/.config.json, which Claude Code reads instead
        (home / ".claude").mkdir()
        (home / ".claude" / ".config.json").write_text('{"numStartups": 1}', encoding="utf-8")
    configure("claude-code", keyed_bridge)
    assert (home / ".claude.json").exists() is not old_install
    out = run_client(claude, ["mcp", "get", "maestro"], home, CLAUDE_OFFLINE_ENV)
    assert out.startswith("maestro:\n"), out
    assert "Scope: User config" in out, out
    assert "Type: http" in out, out
    assert f"URL: {keyed_bridge.root_url}/mcp\n" in out, out
    # The variable's name, never the key: Claude Code expands it when it connects.
    assert "Authorization: Bearer ${MAESTRO_BRIDGE_API_KEY}" in out, out
    listed = run_client(claude, ["mcp", "list"], home, CLAUDE_OFFLINE_ENV)
    assert f"maestro: {keyed_bridge.root_url}/mcp (HTTP)" in listed, listed


def test_codex_lists_the_bridge_as_a_streamable_http_server_with_the_key_variable(
    keyed_bridge: BridgeServer, home: Path
) -> None:
    codex = CODEX.or_skip()
    configure("codex", keyed_bridge)
    listed = json.loads(run_client(codex, ["mcp", "list", "--json"], home, {}))
    [server] = [entry for entry in listed if entry["name"] == "maestro"]
    assert server["enabled"] is True, server
    assert server["transport"]["type"] == "streamable_http", server
    assert server["transport"]["url"] == f"{keyed_bridge.root_url}/mcp", server
    assert server["transport"]["bearer_token_env_var"] == "MAESTRO_BRIDGE_API_KEY", server
    assert server["auth_status"] == "bearer_token", server


def test_gemini_cli_lists_the_bridge_as_an_http_server(
    keyed_bridge: BridgeServer, home: Path
) -> None:
    gemini = GEMINI.or_skip()
    configure("gemini", keyed_bridge)
    # A trusted folder: Gemini CLI leaves the servers of untrusted folders out (disabled).
    trusted = {**GEMINI_OFFLINE_ENV, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    out = run_client(gemini, ["mcp", "list"], home, trusted, "stderr")  # it lists there
    assert f"maestro: {keyed_bridge.root_url}/mcp (http)" in out, out
    assert "Disabled" not in out, out


@pytest.mark.parametrize("client", ["claude-code", "gemini"])
def test_the_clients_that_connect_send_the_key_to_the_bridges_mcp(
    recorder: tuple[str, list[dict[str, Any]]], home: Path, client: str
) -> None:
    root, requests = recorder
    if client == "claude-code":
        binary, args, env, stream = CLAUDE.or_skip(), ["mcp", "list"], CLAUDE_OFFLINE_ENV, "stdout"
    else:
        trusted = {**GEMINI_OFFLINE_ENV, "GEMINI_CLI_TRUST_WORKSPACE": "true"}
        binary, args, env, stream = GEMINI.or_skip(), ["mcp", "list"], trusted, "stderr"
    configure(client, f"{root}/v1")
    # The configuration names $MAESTRO_BRIDGE_API_KEY: the client expands it from its
    # environment (as an agent started in VS Code's terminal has it).
    out = run_client(binary, args, home, {**env, "MAESTRO_BRIDGE_API_KEY": KEY}, stream)
    assert f"maestro: {root}{MCP_PATH}" in out, out
    to_mcp = [r["authorization"] for r in requests if r["path"] == MCP_PATH]
    assert to_mcp, f"{requests}\n{out}"
    assert set(to_mcp) == {f"Bearer {KEY}"}, requests
