"""Each real client reads the MCP server `configure TARGET --tools` wrote, in a temporary HOME.

`configure` runs against a real `serve` that wants an API key; then, with nothing of the
developer's own setup in their environment, `claude mcp get maestro`, `codex mcp list --json`
and `gemini mcp list` must show the server `maestro` at the bridge's /mcp, as a user-scope
(global) Streamable HTTP server, with the key as Claude Code sends it and the variable Codex
reads it from. (Whether the tools answer is the MCP server's own tests' job.)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import processes
import pytest
from claude_code_cli import CLAUDE
from claude_code_cli import OFFLINE_ENV as CLAUDE_OFFLINE_ENV
from cli_runs import ClientBinary, client_env
from conftest import REPO_ROOT, BridgeServer, running_bridge_server
from gemini_cli import CLEARED_ENV_PREFIXES as GEMINI_CLEARED
from gemini_cli import GEMINI
from gemini_cli import OFFLINE_ENV as GEMINI_OFFLINE_ENV

from bridge.cli import main

KEY = "tools-cli-key-1"
TIMEOUT = 90.0
CODEX = ClientBinary(
    "MAESTRO_CODEX_BIN",
    REPO_ROOT / ".cache" / "codex" / "node_modules" / ".bin" / "codex",
    "codex",
    "Codex CLI",
    "npm install --prefix .cache/codex @openai/codex@0.169.0",
)
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
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("USERPROFILE", str(folder))
    for name in os.environ:
        if name.startswith(CLEARED):
            monkeypatch.delenv(name)
    return folder


def configure(target: str, server: BridgeServer) -> None:
    url_option = "--base-url" if target == "codex" else "--url"
    assert (
        main(["configure", target, url_option, server.base_url, "--api-key", KEY, "--tools"]) == 0
    )


def run_client(
    binary: str, args: list[str], home: Path, extra: dict[str, str], stream: str = "stdout"
) -> str:
    """`binary ARGS` in `home/work` with HOME=`home`; what it printed on `stream`."""
    env = client_env(CLEARED, {"HOME": str(home), "USERPROFILE": str(home)}, extra)
    result = processes.run([binary, *args], cwd=home / "work", env=env, timeout=TIMEOUT)
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert result.returncode == 0, report
    return str(getattr(result, stream))


def test_claude_code_lists_the_bridge_as_a_user_http_server_with_the_key(
    keyed_bridge: BridgeServer, home: Path
) -> None:
    claude = CLAUDE.or_skip()
    configure("claude-code", keyed_bridge)
    out = run_client(claude, ["mcp", "get", "maestro"], home, CLAUDE_OFFLINE_ENV)
    assert out.startswith("maestro:\n"), out
    assert "Scope: User config" in out, out
    assert "Type: http" in out, out
    assert f"URL: {keyed_bridge.root_url}/mcp\n" in out, out
    assert f"Authorization: Bearer {KEY}" in out, out
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
