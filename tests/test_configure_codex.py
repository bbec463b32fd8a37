"""`maestro-bridge configure codex`: Codex's config.toml for the running bridge, in one step.

- the merge into an existing config.toml (comments, other providers, an old maestro block),
  checked with an independent TOML reader (tomllib);
- the command against a real `serve`: backup, an idempotent second run, `--dry-run`, the
  alias advice, `--json`, a bridge that wants a key, and no bridge at all (a clear message,
  a non-zero exit, no traceback);
- the real Codex CLI with only the configuration the command wrote: the scripted model runs a
  shell command and edits a file through Codex's tools, then answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import processes
import pytest
from configure_runs import free_port, run_configure
from conftest import BridgeServer, StartServer
from test_e2e_codex import CODEX_TIMEOUT, COMMAND, PATCH_RULES, find_codex

from bridge.cli import main
from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.configure.codex_choice import Alias, choose_codex_model
from bridge.configure.codex_names import codex_offers_all_tools
from bridge.configure.codex_toml import CodexSettings, codex_home, merge
from bridge.configure.config_file import ConfigError, write_config

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

KEY_ENV = "MAESTRO_BRIDGE_API_KEY"

EXISTING = """\
# My Codex settings: keep this comment.
model = "o3"  # what I used before
approval_policy = "on-request"

[model_providers.other]
name = "Other"   # another provider, untouched
base_url = "https://other.example/v1"
env_key = "OTHER_KEY"

# the block an earlier configure wrote
[model_providers.maestro]
name = "Maestro Bridge"
base_url = "http://127.0.0.1:1/v1"
wire_api = "responses"
env_key = "MAESTRO_BRIDGE_API_KEY"
supports_websockets = true

[profiles.fast]
model = "o4-mini"
"""

SETTINGS = CodexSettings("gpt-5.5", "http://127.0.0.1:23335/v1", 128000, None)


# --------------------------------------------------------------------------- the merge


def test_merge_replaces_our_keys_and_keeps_everything_else() -> None:
    text, changes = merge(EXISTING, SETTINGS)
    parsed = tomllib.loads(text)
    assert parsed["model"] == "gpt-5.5"
    assert parsed["model_provider"] == "maestro"
    assert parsed["model_context_window"] == 128000
    assert parsed["approval_policy"] == "on-request"
    assert parsed["model_providers"]["other"] == {
        "name": "Other",
        "base_url": "https://other.example/v1",
        "env_key": "OTHER_KEY",
    }
    assert parsed["model_providers"]["maestro"] == {
        "name": "Maestro Bridge",
        "base_url": "http://127.0.0.1:23335/v1",
        "wire_api": "responses",
        "supports_websockets": True,  # the user's own key in our block stays
    }  # no env_key: no API key now
    assert parsed["profiles"] == {"fast": {"model": "o4-mini"}}
    for comment in (
        "# My Codex settings: keep this comment.",
        "# another provider, untouched",
        "# the block an earlier configure wrote",
    ):
        assert comment in text
    assert [(c.key, c.old, c.new) for c in changes] == [
        ("model", "o3", "gpt-5.5"),
        ("model_provider", None, "maestro"),
        ("model_context_window", None, 128000),
        ("model_providers.maestro.base_url", "http://127.0.0.1:1/v1", "http://127.0.0.1:23335/v1"),
        ("model_providers.maestro.env_key", "MAESTRO_BRIDGE_API_KEY", None),
    ]
    # Top-level keys must come before the first table, or they would belong to it.
    assert text.index("model_provider =") < text.index("[model_providers.other]")


def test_merge_twice_changes_nothing_the_second_time() -> None:
    once, _ = merge(EXISTING, SETTINGS)
    twice, changes = merge(once, SETTINGS)
    assert changes == []
    assert twice == once


def test_merge_into_an_empty_file_writes_the_whole_configuration() -> None:
    settings = CodexSettings("gpt-5.5", "http://127.0.0.1:9/v1", None, KEY_ENV)
    text, _ = merge("", settings)
    assert tomllib.loads(text) == {
        "model": "gpt-5.5",
        "model_provider": "maestro",
        "model_providers": {
            "maestro": {
                "name": "Maestro Bridge",
                "base_url": "http://127.0.0.1:9/v1",
                "wire_api": "responses",
                "env_key": KEY_ENV,
            }
        },
    }


def test_merge_handles_inline_and_dotted_provider_tables() -> None:
    existing = (
        'model_providers.other = { name = "o", base_url = "https://o.example/v1" }\n'
        'model_providers.maestro.base_url = "http://old/v1"\n'
    )
    parsed = tomllib.loads(merge(existing, SETTINGS)[0])
    assert parsed["model_providers"]["other"]["name"] == "o"
    assert parsed["model_providers"]["maestro"]["base_url"] == SETTINGS.base_url
    assert parsed["model"] == "gpt-5.5"


def test_merge_drops_a_stale_context_window_when_the_bridge_tells_none() -> None:
    text, changes = merge(
        merge("", SETTINGS)[0], CodexSettings("gpt-5.5", SETTINGS.base_url, None, None)
    )
    assert "model_context_window" not in tomllib.loads(text)
    assert [(c.key, c.old, c.new) for c in changes] == [("model_context_window", 128000, None)]


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        ("model = \n", "not valid TOML"),
        ('model_providers = "x"\n', "`model_providers` is not a table"),
    ],
)
def test_merge_refuses_a_file_it_cannot_edit(existing: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge(existing, SETTINGS)


def test_write_config_keeps_a_backup_and_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "codex.toml"
    real.parent.mkdir()
    real.write_text("old = 1\n", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    now = datetime(2025, 1, 2, 3, 4, 5)
    first = write_config(link, "new = 2\n", now)
    second = write_config(link, "new = 3\n", now)  # within the same second
    assert link.is_symlink()
    assert real.read_text() == "new = 3\n"
    assert real.stat().st_mode & 0o777 == 0o640
    assert first == real.with_name("codex.toml.bak-20250102-030405")
    assert second == real.with_name("codex.toml.bak-20250102-030405-2")
    assert first.read_text() == "old = 1\n"
    assert second.read_text() == "new = 2\n"


def test_codex_home_is_found_as_codex_finds_it(tmp_path: Path) -> None:
    assert codex_home({"CODEX_HOME": str(tmp_path)}) == tmp_path.resolve()
    assert codex_home({"CODEX_HOME": ""}) == Path.home() / ".codex"
    assert codex_home({}) == Path.home() / ".codex"
    with pytest.raises(ConfigError, match="not an existing folder"):
        codex_home({"CODEX_HOME": str(tmp_path / "missing")})


# --------------------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("name", "full"),
    [
        ("gpt-5.5", True),
        ("gpt-5.5-mini", True),  # Codex matches the longest catalog prefix
        ("sim-echo", False),
        ("gpt-4.1", False),
        ("gpt-5", False),
        ("GPT-5.5", False),  # case-sensitive
        ("gpt-6-astra", False),  # in the catalog, but code mode: no tools in the request
    ],
)
def test_which_names_codex_offers_apply_patch_to(name: str, full: bool) -> None:
    assert codex_offers_all_tools(name) is full


EDITOR = [ListedModel("sim-echo", None, 128000), ListedModel("gpt-5.5-mini", None, 64000)]


def test_an_editor_name_codex_knows_is_used_as_it_is() -> None:
    choice = choose_codex_model(EDITOR, "gpt-5.5-mini")
    assert (choice.codex_model, choice.editor_model, choice.alias) == (
        "gpt-5.5-mini",
        "gpt-5.5-mini",
        None,
    )
    assert choice.context_window == 64000


def test_another_editor_name_gets_the_gpt55_alias() -> None:
    choice = choose_codex_model(EDITOR, None)  # the first model
    assert choice.codex_model == "gpt-5.5"
    assert choice.editor_model == "sim-echo"
    assert choice.alias == Alias("gpt-5.5", "sim-echo", present=False)
    assert choice.context_window == 128000


def test_an_alias_the_bridge_already_has_is_reused() -> None:
    models = [*EDITOR, ListedModel("gpt-5.5", "sim-echo", 128000)]
    for requested in ("sim-echo", "gpt-5.5"):
        choice = choose_codex_model(models, requested)
        assert choice.codex_model == "gpt-5.5"
        assert choice.alias == Alias("gpt-5.5", "sim-echo", present=True)


def test_an_alias_pointing_elsewhere_is_re_pointed() -> None:
    models = [*EDITOR, ListedModel("sim-other", None, 8000), ListedModel("gpt-5.5", "sim-other")]
    choice = choose_codex_model(models, "sim-echo")
    assert choice.alias == Alias("gpt-5.5", "sim-echo", present=False)


def test_an_unknown_model_or_none_at_all_is_a_clear_error() -> None:
    with pytest.raises(ChoiceError, match=r"no model 'nope'\. Models: sim-echo, gpt-5\.5-mini"):
        choose_codex_model(EDITOR, "nope")
    with pytest.raises(ChoiceError, match="offers no models"):
        choose_codex_model([], None)


# --------------------------------------------------------------------------- the command


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty CODEX_HOME, and no API key in the environment."""
    folder = tmp_path / "codex-home"
    folder.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(folder))
    monkeypatch.delenv(KEY_ENV, raising=False)
    return folder


def configure(server: BridgeServer, *args: str) -> int:
    return main(["configure", "codex", "--base-url", server.base_url, *args])


def backups(home: Path) -> list[Path]:
    return sorted(home.glob("config.toml.bak-*"))


def test_configure_merges_keeps_a_backup_and_a_second_run_changes_nothing(
    bridge_server: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / "config.toml"
    config.write_text(EXISTING, encoding="utf-8")
    assert configure(bridge_server, "--model", "sim-reasoning") == 0
    out = capsys.readouterr().out
    parsed = tomllib.loads(config.read_text(encoding="utf-8"))
    assert parsed["model"] == "gpt-5.5"
    assert parsed["model_providers"]["maestro"]["base_url"] == bridge_server.base_url
    assert parsed["model_providers"]["other"]["env_key"] == "OTHER_KEY"
    assert parsed["model_context_window"] == 128000  # sim-reasoning's maxInputTokens
    assert "# My Codex settings: keep this comment." in config.read_text(encoding="utf-8")
    [backup] = backups(home)
    assert backup.read_text(encoding="utf-8") == EXISTING
    assert f"Changed {config}:" in out
    assert 'model: "o3" -> "gpt-5.5"' in out
    assert f"The previous file is saved as {backup}" in out
    # The bridge has no alias yet: the output says which one it needs, and how.
    assert "maestro-bridge serve --model-alias gpt-5.5=sim-reasoning" in out
    assert '"gpt-5.5": "sim-reasoning"' in out

    written = config.read_text(encoding="utf-8")
    assert configure(bridge_server, "--model", "sim-reasoning") == 0
    assert "nothing to change" in capsys.readouterr().out
    assert config.read_text(encoding="utf-8") == written
    assert backups(home) == [backup]


def test_dry_run_prints_the_changes_and_writes_nothing(
    bridge_server: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(bridge_server, "--dry-run") == 0
    out = capsys.readouterr().out
    assert not (home / "config.toml").exists()
    assert "Would change" in out and "Dry run: nothing written." in out
    assert f'model_providers.maestro.base_url: (none) -> "{bridge_server.base_url}"' in out

    (home / "config.toml").write_text(EXISTING, encoding="utf-8")
    assert configure(bridge_server, "--dry-run") == 0
    assert (home / "config.toml").read_text(encoding="utf-8") == EXISTING
    assert backups(home) == []


def test_json_output_tells_the_editor_what_to_do(
    bridge_server: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(bridge_server, "--model", "sim-echo", "--json") == 0
    outcome = json.loads(capsys.readouterr().out)
    assert outcome["config"] == str(home.resolve() / "config.toml")
    assert outcome["written"] is True and outcome["dryRun"] is False
    assert outcome["backup"] is None  # there was no file before
    assert outcome["codexModel"] == "gpt-5.5"
    assert outcome["editorModel"] == "sim-echo"
    assert outcome["contextWindow"] == 128000
    assert outcome["alias"] == {"name": "gpt-5.5", "target": "sim-echo", "present": False}
    assert outcome["apiKeyEnv"] is None
    assert {"key": "model", "old": None, "new": "gpt-5.5"} in outcome["changes"]
    assert any("--model-alias gpt-5.5=sim-echo" in line for line in outcome["report"])


def test_an_unknown_model_fails_and_writes_nothing(
    bridge_server: BridgeServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert configure(bridge_server, "--model", "no-such-model") == 1
    err = capsys.readouterr().err
    assert "The bridge offers no model 'no-such-model'. Models: sim-echo" in err
    assert not (home / "config.toml").exists()


def test_a_bridge_with_a_key_wants_it_and_codex_gets_env_key(
    bridge_server_factory: StartServer, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = bridge_server_factory(env={KEY_ENV: "secret-key-1"})
    assert configure(server) == 1
    assert "The bridge wants an API key" in capsys.readouterr().err
    assert configure(server, "--api-key", "wrong") == 1
    assert "refused the API key" in capsys.readouterr().err
    assert not (home / "config.toml").exists()

    assert configure(server, "--api-key", "secret-key-1") == 0
    out = capsys.readouterr().out
    text = (home / "config.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text)["model_providers"]["maestro"]["env_key"] == KEY_ENV
    assert "secret-key-1" not in text + out  # the key itself is never written or shown
    assert f"${KEY_ENV}: export it" in out


def test_no_bridge_running_is_a_clear_error_with_a_non_zero_exit(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    url = f"http://127.0.0.1:{free_port()}/v1"
    env = {**os.environ, "CODEX_HOME": str(home)}
    env.pop(KEY_ENV, None)
    result = run_configure("codex", ["--base-url", url], env, tmp_path)
    assert result.returncode == 1, result
    assert result.stderr.startswith(f"maestro-bridge: No Maestro Bridge answers at {url}"), result
    assert "maestro-bridge serve" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(home.iterdir()) == []


def test_a_missing_codex_home_is_a_clear_error(
    bridge_server: BridgeServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "missing"))
    assert configure(bridge_server) == 1
    assert "CODEX_HOME is" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


# --------------------------------------------------------------------------- real Codex


@pytest.mark.timeout(CODEX_TIMEOUT + 90)
@pytest.mark.parametrize("key", ["configure-e2e-key", None], ids=["api-key", "no-key"])
def test_codex_runs_a_tool_loop_with_only_the_written_configuration(
    bridge_server_factory: StartServer, tmp_path: Path, key: str | None
) -> None:
    """The bridge has the alias (and a key, or none); `configure codex` writes the rest.

    The scripted model (tests/test_e2e_codex.py's PATCH_RULES) runs a shell command through
    `exec_command`, then edits a file with `apply_patch`, which Codex offers only because the
    written model name is one it knows, then answers DONE.
    """
    codex = find_codex()
    if codex is None:
        if os.environ.get("CI"):
            pytest.fail("Codex CLI not found (see tests/test_e2e_codex.py)")
        pytest.skip("Codex CLI not found (see tests/test_e2e_codex.py)")
    env = {**os.environ, "NO_COLOR": "1"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY", KEY_ENV):
        env.pop(name, None)
    if key is not None:
        env[KEY_ENV] = key
    server = bridge_server_factory(
        "--model-alias", "gpt-5.5=sim-echo", script=PATCH_RULES, env={KEY_ENV: key or ""}
    )
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    env["CODEX_HOME"] = str(codex_home)

    command = ["configure", "codex", "--model", "sim-echo", "--base-url", server.base_url]
    configured = subprocess.run(
        [sys.executable, "-m", "bridge.cli", *command],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert configured.returncode == 0, configured
    assert "already answers 'gpt-5.5' with 'sim-echo'" in configured.stdout
    assert sorted(p.name for p in codex_home.iterdir()) == ["config.toml"]
    provider = tomllib.loads((codex_home / "config.toml").read_text())["model_providers"]
    assert provider["maestro"].get("env_key") == (key and KEY_ENV)

    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "notes.txt").write_text("first line\nold line\n", encoding="utf-8")
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")
    flags = ["--skip-git-repo-check", "--sandbox", sandbox, "--color", "never"]
    last = tmp_path / "last-message.txt"
    flags += ["--cd", str(workdir), "--output-last-message", str(last)]
    prompt = "Please write maestro-hello into out.txt, then fix notes.txt."
    result = processes.run(
        [codex, "exec", *flags, prompt], cwd=workdir, env=env, timeout=CODEX_TIMEOUT
    )
    report = (
        f"config.toml:\n{(codex_home / 'config.toml').read_text()}\n"
        f"codex exit {result.returncode}\nstdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr}\nbridge:\n{server.stderr_text()}"
    )
    assert result.returncode == 0, report
    assert (workdir / "out.txt").read_text().strip() == "maestro-hello", report
    assert (workdir / "notes.txt").read_text() == "first line\npatched by maestro\n", report
    assert last.read_text().strip() == "DONE", report
    assert COMMAND in result.stderr, report
    server.assert_alive()
