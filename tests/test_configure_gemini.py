"""`maestro-bridge configure gemini`: Gemini CLI's .env and settings.json for the running bridge.

- the model choice;
- the command against a real `serve` whose aliases give it Gemini names: fresh files, a
  merge with backups and an idempotent second run, `--dry-run`, a settings.json that is not
  JSON (neither file changes), an unknown `--model`, a bridge that wants a key (never
  shown), `~/.gemini` by default, and no bridge at all.

tests/test_configure_gemini_files.py tests the merges of the two files;
tests/test_configure_gemini_cli.py runs the real Gemini CLI with the written files.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from configure_runs import aliased_bridge, free_port, run_configure
from conftest import BridgeServer, StartServer
from test_configure_gemini_files import EXISTING

from bridge.cli import main
from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.configure.gemini_choice import choose_gemini_model
from bridge.configure.gemini_command import PLACEHOLDER_KEY
from bridge.configure.gemini_env import parse_dotenv

KEY_ENV = "MAESTRO_BRIDGE_API_KEY"

# --------------------------------------------------------------------------- the model choice


def listed(*ids: str) -> list[ListedModel]:
    return [ListedModel(i) for i in ids]


@pytest.mark.parametrize(
    ("ids", "chosen"),
    [
        (["gpt-4.1", "gemini-2.0-flash", "gemini-2.5-pro", "claude-sonnet-4.5"], "gemini-2.5-pro"),
        (["gemini-2.5-pro", "gemini-3-pro-preview", "gemini-3-flash"], "gemini-3-pro-preview"),
        (["gemini-3-pro-preview", "gemini-3-pro"], "gemini-3-pro"),  # plainer of equals
        (["gpt-4.1", "gemini-2.0-flash", "gemini-2.5-flash"], "gemini-2.5-flash"),
        (["gpt-4.1", "claude-sonnet-4.5"], "gpt-4.1"),
    ],
)
def test_the_default_model_is_the_newest_gemini_pro(ids: list[str], chosen: str) -> None:
    assert choose_gemini_model(listed(*ids), None).model == chosen


def test_an_alias_is_chosen_only_when_asked_for() -> None:
    models = [ListedModel("sim-echo", None, 1000), ListedModel("gemini-2.5-pro", "sim-echo")]
    assert choose_gemini_model(models, None).model == "sim-echo"  # aliases are not the editor's
    choice = choose_gemini_model(models, "gemini-2.5-pro")
    assert (choice.model, choice.editor_model, choice.context_window) == (
        "gemini-2.5-pro",
        "sim-echo",
        1000,
    )
    with pytest.raises(
        ChoiceError, match=re.escape("no model 'gemini-9'. Models: sim-echo, gemini-2.5-pro")
    ):
        choose_gemini_model(models, "gemini-9")
    with pytest.raises(ChoiceError, match="offers no models"):
        choose_gemini_model([], None)


# --------------------------------------------------------------------------- the command

ALIASES = ("gemini-2.5-pro=sim-echo", "gemini-2.5-flash=sim-reasoning")


@pytest.fixture(scope="module")
def gemini_bridge() -> Iterator[BridgeServer]:
    """A real `serve` whose aliases give it Gemini names."""
    with aliased_bridge(ALIASES) as server:
        yield server


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`$GEMINI_CLI_HOME/.gemini`, not there yet; none of our variables in the environment."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    for name in (KEY_ENV, "GEMINI_API_KEY", "GEMINI_MODEL", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / ".gemini"


def configure(server: BridgeServer, *args: str) -> int:
    return main(["configure", "gemini", "--url", server.base_url, *args])


def backups(folder: Path) -> list[str]:
    return sorted(p.name.split(".bak-")[0] for p in folder.glob("*.bak-*"))


def test_fresh_files_get_the_bridge_its_model_and_the_api_key_sign_in(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(gemini_bridge) == 0
    out = capsys.readouterr().out
    env = folder / ".env"
    assert parse_dotenv(env.read_text()) == {
        "GOOGLE_GEMINI_BASE_URL": gemini_bridge.root_url,
        "GEMINI_API_KEY": PLACEHOLDER_KEY,
        "GEMINI_MODEL": "sim-gemini",  # the editor's Gemini model, not an alias
    }
    settings = json.loads((folder / "settings.json").read_text())
    assert settings == {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    assert env.stat().st_mode & 0o777 == 0o600  # it holds a key
    assert backups(folder) == []
    assert f"Changed {env}:" in out and f"Changed {folder / 'settings.json'}:" in out
    assert f'GOOGLE_GEMINI_BASE_URL: (none) -> "{gemini_bridge.root_url}"' in out
    assert f'GEMINI_API_KEY: (none) -> "{PLACEHOLDER_KEY}"' in out
    assert 'security.auth.selectedType: (none) -> "gemini-api-key"' in out
    assert "Gemini CLI asks for 'sim-gemini' (128000 input tokens)." in out
    assert "folders you trust" in out


def test_existing_files_are_merged_with_backups_and_a_second_run_changes_nothing(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir()
    (folder / ".env").write_text(EXISTING)
    old_settings = '{\n    "ui": {"theme": "Dracula"}\n}\n'
    (folder / "settings.json").write_text(old_settings)
    assert configure(gemini_bridge, "--model", "gemini-2.5-flash") == 0
    out = capsys.readouterr().out
    read = parse_dotenv((folder / ".env").read_text())
    assert read["GEMINI_MODEL"] == "gemini-2.5-flash" and read["FOO"] == "bar"
    assert "# my Gemini settings\n" in (folder / ".env").read_text()
    assert json.loads((folder / "settings.json").read_text())["ui"] == {"theme": "Dracula"}
    assert backups(folder) == [".env", "settings.json"]
    [env_backup] = folder.glob(".env.bak-*")
    [settings_backup] = folder.glob("settings.json.bak-*")
    assert env_backup.read_text() == EXISTING and settings_backup.read_text() == old_settings
    assert 'GEMINI_MODEL: "gemini-2.0-flash" -> "gemini-2.5-flash"' in out
    assert "GEMINI_API_KEY: (redacted) -> " in out and "AIza-old" not in out
    assert f"The previous file is saved as {env_backup}" in out
    assert "Gemini CLI asks for 'gemini-2.5-flash' (answered by 'sim-reasoning'" in out

    written = (folder / ".env").read_text()
    assert configure(gemini_bridge, "--model", "gemini-2.5-flash") == 0
    assert capsys.readouterr().out.count("nothing to change") == 2
    assert (folder / ".env").read_text() == written
    assert backups(folder) == [".env", "settings.json"]


def test_dry_run_prints_the_changes_and_writes_nothing(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(gemini_bridge, "--dry-run") == 0
    out = capsys.readouterr().out
    assert f"Would change {folder / '.env'}:" in out and "Dry run: nothing written." in out
    assert not folder.exists()
    folder.mkdir()
    (folder / ".env").write_text("GEMINI_MODEL=old\n")
    assert configure(gemini_bridge, "--dry-run", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["dryRun"] is True and outcome["written"] is False
    assert {"key": "GEMINI_MODEL", "old": "old", "new": "sim-gemini"} in outcome["changes"]
    assert sorted(p.name for p in folder.iterdir()) == [".env"]
    assert (folder / ".env").read_text() == "GEMINI_MODEL=old\n"


def test_settings_that_are_not_json_are_a_clear_error_and_neither_file_changes(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder.mkdir()
    (folder / ".env").write_text("GEMINI_MODEL=old\n")
    (folder / "settings.json").write_text('// mine\n{"ui": {}}\n')
    assert configure(gemini_bridge) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"maestro-bridge: Gemini CLI's settings {folder / 'settings.json'}: it is not valid JSON"
    )
    assert "nothing was written" in err
    assert (folder / ".env").read_text() == "GEMINI_MODEL=old\n"
    assert (folder / "settings.json").read_text() == '// mine\n{"ui": {}}\n'
    assert sorted(p.name for p in folder.iterdir()) == [".env", "settings.json"]


def test_an_unknown_model_fails_listing_the_models_and_writes_nothing(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(gemini_bridge, "--model", "gemini-nope") == 1
    err = capsys.readouterr().err
    assert "The bridge offers no model 'gemini-nope'. Models: sim-echo" in err
    assert "gemini-2.5-pro" in err
    assert not folder.exists()


def test_a_bridge_with_a_key_gets_it_never_shown(
    bridge_server_factory: StartServer,
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = bridge_server_factory(env={KEY_ENV: "secret-key-1"})
    assert configure(server) == 1
    assert "The bridge wants an API key" in capsys.readouterr().err
    assert not folder.exists()

    monkeypatch.setenv(KEY_ENV, "secret-key-1")  # the default of --api-key
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-of-the-shell")
    assert main(["configure", "gemini", "--url", server.base_url, "--json"]) == 0
    printed = capsys.readouterr().out
    assert parse_dotenv((folder / ".env").read_text())["GEMINI_API_KEY"] == "secret-key-1"
    assert "secret-key-1" not in printed and "AIza-of-the-shell" not in printed
    outcome = json.loads(printed)
    assert outcome["placeholderKey"] is False
    assert {"key": "GEMINI_API_KEY", "old": None, "new": "(redacted)"} in outcome["changes"]
    assert any(line.startswith("GEMINI_API_KEY is set here and wins") for line in outcome["report"])


def test_without_gemini_cli_home_it_writes_home_dot_gemini(
    gemini_bridge: BridgeServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("GEMINI_CLI_HOME", None)
    env.pop(KEY_ENV, None)
    result = run_configure("gemini", ["--url", f"{gemini_bridge.root_url}/v1beta"], env, tmp_path)
    assert result.returncode == 0, result
    written = parse_dotenv((home / ".gemini" / ".env").read_text())
    assert written["GOOGLE_GEMINI_BASE_URL"] == gemini_bridge.root_url
    assert (home / ".gemini" / "settings.json").exists()


def test_no_bridge_running_is_a_clear_error_with_a_non_zero_exit(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    env = {**os.environ, "GEMINI_CLI_HOME": str(tmp_path)}
    env.pop(KEY_ENV, None)
    result = run_configure("gemini", ["--url", url], env, tmp_path)
    assert result.returncode == 1, result
    assert result.stderr.startswith(f"maestro-bridge: No Maestro Bridge answers at {url}/v1")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / ".gemini").exists()


def test_json_output_has_the_fields_the_vs_code_command_reads(
    gemini_bridge: BridgeServer, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """editor-client/src/geminiSetup.ts (parseGeminiOutcome) checks these names and types."""
    assert configure(gemini_bridge, "--model", "gemini-2.5-pro", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome == {
        "config": str(folder / ".env"),
        "dryRun": False,
        "written": True,
        "backup": None,
        "settings": str(folder / "settings.json"),
        "settingsWritten": True,
        "settingsBackup": None,
        "baseUrl": gemini_bridge.root_url,
        "model": "gemini-2.5-pro",
        "editorModel": "sim-echo",
        "routerModel": None,
        "contextWindow": 128000,
        "placeholderKey": True,
        "mcpUrl": None,  # no --tools
        "changes": outcome["changes"],
        "report": outcome["report"],
    }
    assert len(outcome["changes"]) == 4 and all(isinstance(x, str) for x in outcome["report"])
