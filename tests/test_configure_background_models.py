"""`configure claude-code --small-model` and `configure gemini --router-model`: the cheaper
model each agent's background requests go to.

- the merges: Claude Code's ANTHROPIC_SMALL_FAST_MODEL and haiku model, Gemini CLI's
  `modelConfigs.customOverrides` for its background aliases (other entries stay; a run without
  the option removes ours);
- the commands against a real `serve`: the option validated against the bridge's models (an
  unknown one is an error listing them, nothing written), a merge with a backup, and the
  `--json` field the VS Code commands read.

tests/test_e2e_claude_code_small_model.py and tests/test_e2e_gemini_router_model.py run the
real clients with what is written here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from configure_runs import aliased_bridge
from conftest import BridgeServer

from bridge.cli import main
from bridge.configure.claude_settings import PLACEHOLDER_TOKEN, ClaudeSettings, merge
from bridge.configure.config_file import ConfigError
from bridge.configure.gemini_settings import BACKGROUND_ALIASES, merge_settings

KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
FAMILIES = {"opus": "claude-opus-41", "sonnet": "claude-sonnet-4.5", "haiku": "claude-haiku-4.5"}


def claude_settings(small_model: str | None) -> ClaudeSettings:
    return ClaudeSettings(
        "http://127.0.0.1:23335",
        PLACEHOLDER_TOKEN,
        "claude-sonnet-4.5",
        FAMILIES,
        None,
        small_model,
    )


def routed(router_model: str) -> list[dict[str, object]]:
    return [
        {"match": {"model": alias}, "modelConfig": {"model": router_model}}
        for alias in BACKGROUND_ALIASES
    ]


# --------------------------------------------------------------------------- Claude Code


def test_the_small_model_is_the_small_fast_and_the_haiku_model() -> None:
    text, changes = merge('{"env": {"MY_VAR": "1"}}', claude_settings("gpt-5-mini"))
    env = json.loads(text)["env"]
    assert env["ANTHROPIC_SMALL_FAST_MODEL"] == "gpt-5-mini"
    assert env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == "gpt-5-mini"
    assert env["ANTHROPIC_MODEL"] == "claude-sonnet-4.5" and env["MY_VAR"] == "1"
    assert ("env.ANTHROPIC_SMALL_FAST_MODEL", None, "gpt-5-mini") in [
        (c.key, c.old, c.new) for c in changes
    ]
    assert merge(text, claude_settings("gpt-5-mini")) == (text, [])


def test_without_a_small_model_the_haiku_family_comes_back() -> None:
    with_small, _ = merge("", claude_settings("gpt-5-mini"))
    text, changes = merge(with_small, claude_settings(None))
    env = json.loads(text)["env"]
    assert "ANTHROPIC_SMALL_FAST_MODEL" not in env
    assert env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == "claude-haiku-4.5"
    assert [(c.key, c.old, c.new) for c in changes] == [
        ("env.ANTHROPIC_DEFAULT_HAIKU_MODEL", "gpt-5-mini", "claude-haiku-4.5"),
        ("env.ANTHROPIC_SMALL_FAST_MODEL", "gpt-5-mini", None),
    ]


# --------------------------------------------------------------------------- Gemini CLI


def test_the_router_model_overrides_each_background_alias_and_keeps_the_rest() -> None:
    theirs = {"match": {"model": "classifier"}, "modelConfig": {"generateContentConfig": {}}}
    existing = {"ui": {"theme": "Dracula"}, "modelConfigs": {"customOverrides": [theirs]}}
    text, changes = merge_settings(json.dumps(existing), "gpt-5-mini")
    settings = json.loads(text)
    assert settings["ui"] == {"theme": "Dracula"}
    assert settings["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    # Theirs first, ours last: of two overrides of one level the later wins.
    assert settings["modelConfigs"]["customOverrides"] == [theirs, *routed("gpt-5-mini")]
    names = [c.key for c in changes]
    assert names[0] == "security.auth.selectedType"
    assert names[1:] == [f"modelConfigs.customOverrides[{a}]" for a in BACKGROUND_ALIASES]
    assert merge_settings(text, "gpt-5-mini") == (text, [])

    again, changes = merge_settings(text, "gpt-4.1")
    overrides = json.loads(again)["modelConfigs"]["customOverrides"]
    assert overrides == [theirs, *routed("gpt-4.1")]  # replaced, not added twice
    assert changes[0].old == "gpt-5-mini" and changes[0].new == "gpt-4.1"

    dropped, changes = merge_settings(again, None)
    assert json.loads(dropped)["modelConfigs"]["customOverrides"] == [theirs]
    assert {c.new for c in changes} == {None} and len(changes) == len(BACKGROUND_ALIASES)


def test_the_router_aliases_are_gemini_cli_s_own() -> None:
    assert "classifier" in BACKGROUND_ALIASES and "next-speaker-checker" in BACKGROUND_ALIASES
    # Compression rewrites the whole conversation: it stays on the main model.
    assert not any(alias.startswith("chat-compression") for alias in BACKGROUND_ALIASES)


def test_without_a_router_model_a_file_without_overrides_is_left_alone() -> None:
    text = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}, "x": 1})
    assert merge_settings(text, None) == (text, [])
    odd = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}, "modelConfigs": 3})
    assert merge_settings(odd, None) == (odd, [])


@pytest.mark.parametrize(
    ("existing", "message"),
    [
        ('{"modelConfigs": []}', "`modelConfigs` is not an object"),
        (
            '{"modelConfigs": {"customOverrides": {}}}',
            "`modelConfigs.customOverrides` is not a list",
        ),
    ],
)
def test_overrides_it_cannot_edit_are_refused(existing: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        merge_settings(existing, "gpt-5-mini")


# --------------------------------------------------------------------------- the commands


@pytest.fixture(scope="module")
def bridge() -> Iterator[BridgeServer]:
    """A real `serve` with Claude and Gemini names, and a cheap one, as aliases."""
    aliases = (
        "claude-sonnet-4.5=sim-reasoning",
        "gemini-2.5-pro=sim-gemini",
        "gpt-5-mini=sim-echo",
    )
    with aliased_bridge(aliases) as server:
        yield server


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(Claude Code's config folder, Gemini CLI's folder), neither there yet."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    for name in (KEY_ENV, "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GEMINI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "claude", tmp_path / ".gemini"


def test_claude_small_model_is_written_and_reported(
    bridge: BridgeServer, homes: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    claude_dir, _ = homes
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text('{"env": {"ANTHROPIC_MODEL": "x"}}')
    args = ["configure", "claude-code", "--url", bridge.base_url, "--small-model", "gpt-5-mini"]
    assert main([*args, "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    env = json.loads((claude_dir / "settings.json").read_text())["env"]
    assert env["ANTHROPIC_SMALL_FAST_MODEL"] == env["ANTHROPIC_DEFAULT_HAIKU_MODEL"] == "gpt-5-mini"
    assert env["ANTHROPIC_MODEL"] == "claude-sonnet-4.5"
    assert outcome["smallModel"] == outcome["haikuModel"] == "gpt-5-mini"
    assert outcome["backup"] is not None and Path(outcome["backup"]).exists()
    assert (
        "Its background requests (prompt hooks and other one-shot helpers) go to 'gpt-5-mini'."
        in (outcome["report"])
    )


def test_gemini_router_model_is_written_and_reported(
    bridge: BridgeServer, homes: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, gemini_dir = homes
    args = ["configure", "gemini", "--url", bridge.base_url, "--router-model", "gpt-5-mini"]
    assert main([*args, "--json"]) == 0
    outcome = json.loads(capsys.readouterr().out)
    settings = json.loads((gemini_dir / "settings.json").read_text())
    assert settings["modelConfigs"]["customOverrides"] == routed("gpt-5-mini")
    assert outcome["routerModel"] == "gpt-5-mini"
    assert any("ask for 'gpt-5-mini'" in line for line in outcome["report"])


@pytest.mark.parametrize(
    ("target", "option", "folder_index"),
    [("claude-code", "--small-model", 0), ("gemini", "--router-model", 1)],
)
def test_an_unknown_cheap_model_lists_the_models_and_writes_nothing(
    bridge: BridgeServer,
    homes: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    target: str,
    option: str,
    folder_index: int,
) -> None:
    assert main(["configure", target, "--url", bridge.base_url, option, "gpt-nope"]) == 1
    err = capsys.readouterr().err
    assert f"{option}: the bridge offers no model 'gpt-nope'. Models: " in err
    assert "sim-echo" in err and "gpt-5-mini" in err
    assert "Traceback" not in err
    assert not homes[folder_index].exists()
