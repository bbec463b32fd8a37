"""`maestro-bridge configure claude-code`: Claude Code's settings.json for the running bridge.

- the merge into an existing settings.json (other keys and other `env` keys stay);
- the command against a real `serve` whose aliases give it Claude names: a fresh file, a
  merge with a backup and an idempotent second run, `--dry-run`, bad JSON, an unknown
  `--model`, a bridge that wants a key (never shown), `$CLAUDE_CONFIG_DIR` and `~/.claude`,
  and no bridge at all.

tests/test_claude_model_choice.py tests the model choice; tests/test_configure_claude_cli.py
runs the real Claude Code with the written settings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from configure_runs import aliased_bridge, free_port, run_configure
from conftest import BridgeServer, StartServer

from bridge.cli import main
from bridge.configure.bridge_models import bridge_root
from bridge.configure.claude_settings import (
    PLACEHOLDER_TOKEN,
    ClaudeSettings,
    claude_config_dir,
    merge,
)
from bridge.configure.config_file import ConfigError

KEY_ENV = "MAESTRO_BRIDGE_API_KEY"

# --------------------------------------------------------------------------- the merge

FAMILIES = {"opus": "claude-opus-41", "sonnet": "claude-sonnet-4.5", "haiku": "claude-haiku-4.5"}
SETTINGS = ClaudeSettings(
    "http://127.0.0.1:23335", PLACEHOLDER_TOKEN, "claude-sonnet-4.5", FAMILIES, 128000
)
OURS = {
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:23335",
    "ANTHROPIC_AUTH_TOKEN": PLACEHOLDER_TOKEN,
    "ANTHROPIC_MODEL": "claude-sonnet-4.5",
    "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-41",
    "ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-4.5",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "claude-haiku-4.5",
    "CLAUDE_CODE_AUTO_COMPACT_WINDOW": "128000",
}
EXISTING = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "env": {"MY_VAR": "mine", "ANTHROPIC_MODEL": "claude-opus-4-1", "DISABLE_TELEMETRY": "1"},
    "theme": "dark",
}


def test_merge_into_nothing_writes_only_our_env() -> None:
    text, changes = merge("", SETTINGS)
    assert json.loads(text) == {"env": OURS}
    assert text == json.dumps({"env": OURS}, indent=2) + "\n"  # 2-space indent
    assert [c.key for c in changes] == [f"env.{key}" for key in OURS]


def test_merge_keeps_every_other_key_and_their_order() -> None:
    text, changes = merge(json.dumps(EXISTING), SETTINGS)
    merged = json.loads(text)
    assert list(merged) == ["permissions", "env", "theme"]
    assert merged["permissions"] == EXISTING["permissions"]
    assert merged["env"] == {"MY_VAR": "mine", "DISABLE_TELEMETRY": "1", **OURS}
    assert list(merged["env"])[:3] == ["MY_VAR", "ANTHROPIC_MODEL", "DISABLE_TELEMETRY"]
    assert ("env.ANTHROPIC_MODEL", "claude-opus-4-1", "claude-sonnet-4.5") in [
        (c.key, c.old, c.new) for c in changes
    ]
    again, none = merge(text, SETTINGS)
    assert (again, none) == (text, [])


def test_merge_drops_a_stale_window_when_the_bridge_tells_none() -> None:
    unknown = ClaudeSettings(SETTINGS.base_url, PLACEHOLDER_TOKEN, "x", FAMILIES, None)
    text, changes = merge(merge("", SETTINGS)[0], unknown)
    assert "CLAUDE_CODE_AUTO_COMPACT_WINDOW" not in json.loads(text)["env"]
    assert ("env.CLAUDE_CODE_AUTO_COMPACT_WINDOW", "128000", None) in [
        (c.key, c.old, c.new) for c in changes
    ]


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        ('{"env": {"A": "1",}}', "not valid JSON"),
        ("// a comment\n{}", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"env": "x"}', "`env` is not an object"),
    ],
)
def test_merge_refuses_a_file_it_cannot_edit(existing: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge(existing, SETTINGS)


def test_the_settings_folder_is_found_as_claude_code_finds_it(tmp_path: Path) -> None:
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": str(tmp_path)}) == tmp_path
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": ""}) == Path.home() / ".claude"
    assert claude_config_dir({}) == Path.home() / ".claude"
    assert claude_config_dir({"CLAUDE_CONFIG_DIR": "~/cc"}) == Path.home() / "cc"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9",
        "http://127.0.0.1:9/",
        "http://127.0.0.1:9/v1",
        "http://127.0.0.1:9/v1/",
    ],
)
def test_the_base_url_is_the_bridge_without_v1(url: str) -> None:
    assert bridge_root(url) == "http://127.0.0.1:9"


# --------------------------------------------------------------------------- the command

ALIASES = (
    "claude-sonnet-4.5=sim-echo",
    "claude-opus-41=sim-reasoning",
    "claude-haiku-4.5=sim-echo",
)


@pytest.fixture(scope="module")
def claude_bridge() -> Iterator[BridgeServer]:
    """A real `serve` whose aliases give it Claude names, as an editor with Copilot would."""
    with aliased_bridge(ALIASES) as server:
        yield server


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$CLAUDE_CONFIG_DIR, a folder that does not exist yet; no API key in the environment."""
    folder = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    return folder


def configure(server: BridgeServer, *args: str) -> int:
    return main(["configure", "claude-code", "--url", server.base_url, *args])


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("settings.json.bak-*"))


def root_of(server: BridgeServer) -> str:
    return server.base_url.removesuffix("/v1")


def test_a_fresh_settings_file_gets_the_bridge_and_its_models(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(claude_bridge) == 0
    out = capsys.readouterr().out
    settings = config_dir / "settings.json"
    assert json.loads(settings.read_text(encoding="utf-8")) == {
        "env": {**OURS, "ANTHROPIC_BASE_URL": root_of(claude_bridge)}
    }
    assert settings.stat().st_mode & 0o777 == 0o600  # it holds a token
    assert backups(config_dir) == []
    assert f"Changed {settings}:" in out
    assert f'env.ANTHROPIC_BASE_URL: (none) -> "{root_of(claude_bridge)}"' in out
    assert f'env.ANTHROPIC_AUTH_TOKEN: (none) -> "{PLACEHOLDER_TOKEN}"' in out
    assert "(a new file)" in out
    assert "Claude Code asks for 'claude-sonnet-4.5' (128000 input tokens)" in out
    assert "ANTHROPIC_API_KEY" not in out


def test_an_anthropic_key_in_the_environment_is_pointed_out(
    claude_bridge: BridgeServer,
    config_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-shown")
    assert configure(claude_bridge, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "ANTHROPIC_API_KEY is set here: Claude Code also sends it" in out
    assert "sk-ant-not-shown" not in out


def test_an_existing_file_is_merged_with_a_backup_and_a_second_run_changes_nothing(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_dir.mkdir()
    settings = config_dir / "settings.json"
    old_text = json.dumps(EXISTING, indent=4)
    settings.write_text(old_text, encoding="utf-8")
    settings.chmod(0o640)
    assert configure(claude_bridge, "--model", "sim-reasoning") == 0
    out = capsys.readouterr().out
    merged = json.loads(settings.read_text(encoding="utf-8"))
    assert merged["permissions"] == EXISTING["permissions"] and merged["theme"] == "dark"
    assert merged["env"]["MY_VAR"] == "mine" and merged["env"]["DISABLE_TELEMETRY"] == "1"
    assert merged["env"]["ANTHROPIC_MODEL"] == "sim-reasoning"
    assert merged["env"]["ANTHROPIC_DEFAULT_OPUS_MODEL"] == "claude-opus-41"
    assert settings.stat().st_mode & 0o777 == 0o640  # the mode the user chose stays
    [backup] = backups(config_dir)
    assert backup.read_text(encoding="utf-8") == old_text
    assert 'env.ANTHROPIC_MODEL: "claude-opus-4-1" -> "sim-reasoning"' in out
    assert f"The previous file is saved as {backup}" in out

    written = settings.read_text(encoding="utf-8")
    assert configure(claude_bridge, "--model", "sim-reasoning") == 0
    assert "nothing to change" in capsys.readouterr().out
    assert settings.read_text(encoding="utf-8") == written
    assert backups(config_dir) == [backup]


def test_dry_run_prints_the_changes_and_writes_nothing(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(claude_bridge, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "Would change" in out and "Dry run: nothing written." in out
    assert not config_dir.exists()

    config_dir.mkdir()
    (config_dir / "settings.json").write_text(json.dumps(EXISTING), encoding="utf-8")
    assert configure(claude_bridge, "--dry-run", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["dryRun"] is True and outcome["written"] is False
    assert {"key": "env.ANTHROPIC_MODEL", "old": "claude-opus-4-1", "new": "claude-sonnet-4.5"} in (
        outcome["changes"]
    )
    assert json.loads((config_dir / "settings.json").read_text()) == EXISTING
    assert backups(config_dir) == []


def test_invalid_json_is_a_clear_error_and_nothing_is_written(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_dir.mkdir()
    settings = config_dir / "settings.json"
    settings.write_text('{"env": {"A": "1",}}\n', encoding="utf-8")
    assert configure(claude_bridge) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"maestro-bridge: Claude Code's settings {settings}: it is not valid JSON"
    )
    assert "nothing was written" in err
    assert settings.read_text(encoding="utf-8") == '{"env": {"A": "1",}}\n'
    assert sorted(p.name for p in config_dir.iterdir()) == ["settings.json"]


def test_an_unknown_model_fails_listing_the_models_and_writes_nothing(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(claude_bridge, "--model", "claude-nope") == 1
    err = capsys.readouterr().err
    assert "The bridge offers no model 'claude-nope'. Models: sim-echo, sim-reasoning" in err
    assert "claude-opus-41" in err
    assert not config_dir.exists()


def test_a_bridge_with_a_key_gets_it_as_the_token_never_shown(
    bridge_server_factory: StartServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bridge_server_factory(env={KEY_ENV: "secret-key-1"})
    assert configure(server) == 1
    assert "The bridge wants an API key" in capsys.readouterr().err
    assert not config_dir.exists()

    assert configure(server, "--api-key", "secret-key-1") == 0
    out = capsys.readouterr().out
    env = json.loads((config_dir / "settings.json").read_text())["env"]
    assert env["ANTHROPIC_AUTH_TOKEN"] == "secret-key-1"
    assert env["ANTHROPIC_MODEL"] == "sim-echo"  # no Claude names: the first model
    assert "env.ANTHROPIC_AUTH_TOKEN: (none) -> (redacted)" in out
    assert "secret-key-1" not in out

    assert configure(server, "--api-key", "secret-key-1", "--json") == 0
    assert "secret-key-1" not in capsys.readouterr().out  # nothing changed, nothing shown
    (config_dir / "settings.json").write_text('{"env": {"ANTHROPIC_AUTH_TOKEN": "old-key"}}')
    assert configure(server, "--api-key", "secret-key-1", "--json") == 0
    printed = capsys.readouterr().out
    assert "secret-key-1" not in printed and "old-key" not in printed
    changes = json.loads(printed)["changes"]
    assert changes[1] == {
        "key": "env.ANTHROPIC_AUTH_TOKEN",
        "old": "(redacted)",
        "new": "(redacted)",
    }


def test_without_claude_config_dir_it_writes_home_dot_claude(
    claude_bridge: BridgeServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop(KEY_ENV, None)
    url = root_of(claude_bridge)  # the root URL works too
    result = run_configure("claude-code", ["--url", url], env, tmp_path)
    assert result.returncode == 0, result
    written = json.loads((home / ".claude" / "settings.json").read_text())
    assert written["env"]["ANTHROPIC_BASE_URL"] == root_of(claude_bridge)


def test_no_bridge_running_is_a_clear_error_with_a_non_zero_exit(tmp_path: Path) -> None:
    folder = tmp_path / "claude-config"
    url = f"http://127.0.0.1:{free_port()}"
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(folder)}
    env.pop(KEY_ENV, None)
    result = run_configure("claude-code", ["--url", url], env, tmp_path)
    assert result.returncode == 1, result
    assert result.stderr.startswith(f"maestro-bridge: No Maestro Bridge answers at {url}/v1")
    assert "Traceback" not in result.stderr
    assert not folder.exists()


def test_json_output_has_the_fields_the_vs_code_command_reads(
    claude_bridge: BridgeServer, config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """editor-client/src/claudeSetup.ts (parseClaudeOutcome) checks these names and types."""
    assert configure(claude_bridge, "--model", "sim-echo", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome == {
        "config": str(config_dir / "settings.json"),
        "dryRun": False,
        "written": True,
        "backup": None,
        "baseUrl": root_of(claude_bridge),
        "model": "sim-echo",
        "opusModel": "claude-opus-41",
        "sonnetModel": "claude-sonnet-4.5",
        "haikuModel": "claude-haiku-4.5",
        "smallModel": None,
        "contextWindow": 128000,
        "placeholderToken": True,
        "mcpUrl": None,  # no --tools
        "mcpConfig": None,
        "mcpWritten": False,
        "mcpBackup": None,
        "changes": outcome["changes"],
        "report": outcome["report"],
    }
    assert len(outcome["changes"]) == 7 and all(isinstance(x, str) for x in outcome["report"])
