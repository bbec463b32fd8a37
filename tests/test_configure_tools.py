"""`maestro-bridge configure TARGET --tools`: the bridge's MCP server in each client's files.

- the merges: Claude Code's `.claude.json` and Gemini CLI's `settings.json` (`mcpServers.
  maestro`), Codex's `config.toml` (`[mcp_servers.maestro]`), each as the client's own
  `mcp add` writes it, keeping the user's other servers and keys;
- the command against a real `serve` with an API key, in a temporary HOME: the files, a
  backup of each file that was there, an idempotent second run, the key never printed,
  `--dry-run`, and no MCP entry without `--tools`.

tests/test_configure_tools_cli.py has each real client read what is written here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomlkit
from conftest import BridgeServer, running_bridge_server

from bridge.cli import main
from bridge.configure.claude_mcp import claude_global_file, merge_mcp
from bridge.configure.codex_toml import CodexSettings, merge
from bridge.configure.config_file import ConfigError
from bridge.configure.gemini_settings import merge_settings
from bridge.configure.mcp_server import McpServer

KEY = "tools-key-1"
URL = "http://127.0.0.1:23335/mcp"
WITH_KEY = McpServer(URL, KEY)
NO_KEY = McpServer(URL, None)
# The header names the variable, never the key (Claude Code and Gemini CLI expand it).
REFERENCE = "Bearer ${MAESTRO_BRIDGE_API_KEY}"
CLAUDE_ENTRY = {"type": "http", "url": URL, "headers": {"Authorization": REFERENCE}}
GEMINI_ENTRY = {"url": URL, "type": "http", "headers": {"Authorization": REFERENCE}}
OTHER_SERVER = {"type": "stdio", "command": "npx", "args": ["-y", "some-server"]}

# --------------------------------------------------------------------------- the merges


def test_claude_merge_into_nothing_writes_what_claude_mcp_add_writes() -> None:
    text, changes = merge_mcp("", WITH_KEY)
    assert json.loads(text) == {"mcpServers": {"maestro": CLAUDE_ENTRY}}
    assert list(json.loads(text)["mcpServers"]["maestro"]) == ["type", "url", "headers"]
    assert [c.key for c in changes] == [
        "mcpServers.maestro.type",
        "mcpServers.maestro.url",
        "mcpServers.maestro.headers.Authorization",
    ]
    text, _ = merge_mcp("", NO_KEY)
    assert json.loads(text) == {"mcpServers": {"maestro": {"type": "http", "url": URL}}}


def test_claude_merge_keeps_claude_codes_state_and_the_users_servers() -> None:
    existing = {
        "numStartups": 4,
        "mcpServers": {
            "docs": OTHER_SERVER,
            "maestro": {"command": "old", "timeout": 5, "headers": {"X-Team": "a"}},
        },
        "projects": {"/src": {"allowedTools": []}},
    }
    text, changes = merge_mcp(json.dumps(existing), WITH_KEY)
    merged = json.loads(text)
    assert list(merged) == ["numStartups", "mcpServers", "projects"]
    assert merged["projects"] == existing["projects"]
    assert merged["mcpServers"]["docs"] == OTHER_SERVER
    assert merged["mcpServers"]["maestro"] == {
        "timeout": 5,  # the user's
        "headers": {"X-Team": "a", "Authorization": REFERENCE},
        "type": "http",
        "url": URL,
    }
    assert ("mcpServers.maestro.command", "old", None) in [(c.key, c.old, c.new) for c in changes]
    assert merge_mcp(text, WITH_KEY) == (text, [])  # a second run changes nothing


def test_claude_merge_drops_the_header_when_the_bridge_has_no_key_any_more() -> None:
    text, changes = merge_mcp(merge_mcp("", WITH_KEY)[0], NO_KEY)
    assert json.loads(text)["mcpServers"]["maestro"] == {"type": "http", "url": URL}
    assert [(c.key, c.new) for c in changes] == [("mcpServers.maestro.headers.Authorization", None)]


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        ('{"mcpServers": []}', "`mcpServers` is not an object"),
        ('{"mcpServers": {"maestro": {"headers": "x"}}}', "`mcpServers.maestro.headers` is not"),
        ("{", "not valid JSON"),
    ],
)
def test_claude_merge_refuses_a_file_it_cannot_edit(existing: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge_mcp(existing, WITH_KEY)


def test_claude_codes_file_is_found_as_claude_code_finds_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert claude_global_file({"HOME": str(home)}, "linux") == home / ".claude.json"
    config = tmp_path / "cfg"
    assert claude_global_file({"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)}) == (
        config / ".claude.json"
    )
    windows = {"USERPROFILE": str(home), "HOME": "/c/msys"}
    assert claude_global_file(windows, "win32") == home / ".claude.json"
    # An old install's file, used by Claude Code instead when it has content.
    legacy = home / ".claude" / ".config.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text("", encoding="utf-8")
    assert claude_global_file({"HOME": str(home)}, "linux") == home / ".claude.json"
    legacy.write_text("{}", encoding="utf-8")
    assert claude_global_file({"HOME": str(home)}, "linux") == legacy
    assert claude_global_file({"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)}) == (
        config / ".claude.json"
    )


CODEX = CodexSettings("gpt-5.5", "http://127.0.0.1:23335/v1", None, "MAESTRO_BRIDGE_API_KEY", URL)


def test_codex_merge_writes_what_codex_mcp_add_writes_and_keeps_the_rest() -> None:
    existing = (
        "# my settings\n"
        'approval_policy = "never"\n\n'
        "[mcp_servers.docs]\n"
        'command = "npx"\n\n'
        "[mcp_servers.maestro]\n"
        'command = "old"\n'
        "startup_timeout_sec = 20\n"
    )
    text, changes = merge(existing, CODEX)
    assert text.startswith('# my settings\napproval_policy = "never"\n')
    parsed = tomlkit.parse(text).unwrap()
    assert parsed["mcp_servers"] == {
        "docs": {"command": "npx"},
        "maestro": {
            "startup_timeout_sec": 20,
            "url": URL,
            "bearer_token_env_var": "MAESTRO_BRIDGE_API_KEY",
        },
    }
    keys = [(c.key, c.old, c.new) for c in changes]
    assert ("mcp_servers.maestro.command", "old", None) in keys
    assert ("mcp_servers.maestro.url", None, URL) in keys
    assert merge(text, CODEX) == (text, [])

    no_key = CodexSettings(CODEX.model, CODEX.base_url, None, None, URL)
    text, changes = merge(text, no_key)
    assert tomlkit.parse(text).unwrap()["mcp_servers"]["maestro"] == {
        "startup_timeout_sec": 20,
        "url": URL,
    }


def test_codex_merge_without_tools_leaves_mcp_servers_alone() -> None:
    existing = '[mcp_servers.maestro]\nurl = "http://elsewhere/mcp"\n'
    without = CodexSettings(CODEX.model, CODEX.base_url, None, None)
    text, changes = merge(existing, without)
    assert tomlkit.parse(text).unwrap()["mcp_servers"] == {
        "maestro": {"url": "http://elsewhere/mcp"}
    }
    assert not [c for c in changes if c.key.startswith("mcp_servers")]


def test_gemini_merge_writes_what_gemini_mcp_add_writes_and_keeps_the_rest() -> None:
    existing = {
        "ui": {"theme": "GitHub"},
        "mcpServers": {
            "docs": OTHER_SERVER,
            "maestro": {"httpUrl": "http://old/mcp", "trust": True},
        },
    }
    text, changes = merge_settings(json.dumps(existing), None, WITH_KEY)
    merged = json.loads(text)
    assert merged["ui"] == {"theme": "GitHub"}
    assert merged["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert merged["mcpServers"] == {
        "docs": OTHER_SERVER,
        "maestro": {"trust": True, **GEMINI_ENTRY},
    }
    keys = [(c.key, c.old, c.new) for c in changes]
    assert ("mcpServers.maestro.httpUrl", "http://old/mcp", None) in keys
    assert merge_settings(text, None, WITH_KEY) == (text, [])
    fresh, _ = merge_settings("", None, WITH_KEY)
    assert list(json.loads(fresh)["mcpServers"]["maestro"]) == ["url", "type", "headers"]


# --------------------------------------------------------------------------- the command


@pytest.fixture(scope="module")
def keyed_bridge() -> Iterator[BridgeServer]:
    """A real `serve` that wants the API key KEY."""
    with running_bridge_server("--api-key", KEY) as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME where every client keeps its files; no client variable of our own."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("USERPROFILE", str(folder))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "MAESTRO_BRIDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return folder


def configure(target: str, server: BridgeServer, *args: str) -> int:
    url_option = "--base-url" if target == "codex" else "--url"
    return main(["configure", target, url_option, server.base_url, "--api-key", KEY, *args])


def mcp_url(server: BridgeServer) -> str:
    return f"{server.root_url}/mcp"


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.bak-*"))


def test_claude_code_gets_the_server_in_claude_json_with_a_backup_once(
    keyed_bridge: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude_json = home / ".claude.json"
    old_text = json.dumps({"numStartups": 3, "mcpServers": {"docs": OTHER_SERVER}}, indent=2)
    claude_json.write_text(old_text, encoding="utf-8")
    assert configure("claude-code", keyed_bridge, "--tools") == 0
    out = capsys.readouterr().out
    written = json.loads(claude_json.read_text(encoding="utf-8"))
    assert written == {
        "numStartups": 3,
        "mcpServers": {
            "docs": OTHER_SERVER,
            "maestro": {**CLAUDE_ENTRY, "url": mcp_url(keyed_bridge)},
        },
    }
    [backup] = backups(claude_json)
    assert backup.read_text(encoding="utf-8") == old_text
    assert f"Changed {claude_json}:" in out
    assert f'mcpServers.maestro.url: (none) -> "{mcp_url(keyed_bridge)}"' in out
    assert "mcpServers.maestro.headers.Authorization: (none) -> (redacted)" in out
    assert f"The previous file is saved as {backup}" in out
    assert "mcp__maestro__<tool>" in out and "maestroBridge.tools.enable" in out
    assert KEY not in out and KEY not in claude_json.read_text(encoding="utf-8")
    assert "sends the key to the MCP server from $MAESTRO_BRIDGE_API_KEY" in out
    assert json.loads((home / ".claude" / "settings.json").read_text())["env"]["ANTHROPIC_MODEL"]

    text = claude_json.read_text(encoding="utf-8")
    assert configure("claude-code", keyed_bridge, "--tools", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["mcpUrl"] == mcp_url(keyed_bridge)
    assert outcome["mcpConfig"] == str(claude_json)
    assert outcome["mcpWritten"] is False and outcome["changes"] == []
    assert (
        f"{claude_json} already has the bridge's MCP server: nothing to change."
        in (outcome["report"])
    )
    assert claude_json.read_text(encoding="utf-8") == text
    assert backups(claude_json) == [backup]


def test_codex_gets_the_server_in_config_toml_with_the_key_from_the_environment(
    keyed_bridge: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('[mcp_servers.docs]\ncommand = "npx"\n', encoding="utf-8")
    assert configure("codex", keyed_bridge, "--tools") == 0
    out = capsys.readouterr().out
    text = config.read_text(encoding="utf-8")
    assert tomlkit.parse(text).unwrap()["mcp_servers"] == {
        "docs": {"command": "npx"},
        "maestro": {"url": mcp_url(keyed_bridge), "bearer_token_env_var": "MAESTRO_BRIDGE_API_KEY"},
    }
    assert KEY not in text and KEY not in out  # Codex reads it from $MAESTRO_BRIDGE_API_KEY
    assert len(backups(config)) == 1
    assert f'mcp_servers.maestro.url: (none) -> "{mcp_url(keyed_bridge)}"' in out
    assert "`codex mcp list` shows it" in out

    assert configure("codex", keyed_bridge, "--tools", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["written"] is False and outcome["mcpUrl"] == mcp_url(keyed_bridge)
    assert config.read_text(encoding="utf-8") == text and len(backups(config)) == 1


def test_gemini_cli_gets_the_server_in_settings_json(
    keyed_bridge: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"mcpServers": {"docs": OTHER_SERVER}}), encoding="utf-8")
    assert configure("gemini", keyed_bridge, "--tools") == 0
    out = capsys.readouterr().out
    written = json.loads(settings.read_text(encoding="utf-8"))
    assert written["mcpServers"] == {
        "docs": OTHER_SERVER,
        "maestro": {**GEMINI_ENTRY, "url": mcp_url(keyed_bridge)},
    }
    assert len(backups(settings)) == 1
    assert "mcpServers.maestro.headers.Authorization: (none) -> (redacted)" in out
    assert KEY not in out and KEY not in settings.read_text(encoding="utf-8")
    assert "sends the key to the MCP server from $MAESTRO_BRIDGE_API_KEY" in out

    text = settings.read_text(encoding="utf-8")
    assert configure("gemini", keyed_bridge, "--tools", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["settingsWritten"] is False and outcome["mcpUrl"] == mcp_url(keyed_bridge)
    assert KEY not in json.dumps(outcome)
    assert settings.read_text(encoding="utf-8") == text and len(backups(settings)) == 1


@pytest.mark.parametrize("target", ["claude-code", "codex", "gemini"])
def test_without_tools_no_server_is_added_and_dry_run_writes_nothing(
    keyed_bridge: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    files = {
        "claude-code": home / ".claude.json",
        "codex": home / ".codex" / "config.toml",
        "gemini": home / ".gemini" / "settings.json",
    }
    assert configure(target, keyed_bridge, "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["mcpUrl"] is None
    assert "mcp" not in json.dumps(outcome["changes"]).lower()
    if target == "claude-code":
        assert not files[target].exists()
    elif target == "codex":
        assert "mcp_servers" not in tomlkit.parse(files[target].read_text()).unwrap()
    else:
        assert "mcpServers" not in json.loads(files[target].read_text())

    before = files[target].read_text() if files[target].exists() else None
    assert configure(target, keyed_bridge, "--tools", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "Would change" in out and "Dry run: nothing written." in out
    label = "mcp_servers.maestro.url" if target == "codex" else "mcpServers.maestro.url"
    assert f'{label}: (none) -> "{mcp_url(keyed_bridge)}"' in out
    after = files[target].read_text() if files[target].exists() else None
    assert after == before
