"""Where `run` and `doctor` look for the bridge and its key, in order: the flag, the variable
VS Code sets in its terminals, the key file `serve` writes into the state folder, the default
port; and `run`'s model choice (the flag, the agent's configured model when listed, the
editor's default)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.run.connection import DEFAULT_ROOT, find_connection, key_file
from bridge.run.model_choice import choose_model, codex_name


def _environ(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path), "XDG_STATE_HOME": str(tmp_path / "state"), **extra}


def test_the_flag_wins_then_the_variable_then_the_key_file(tmp_path: Path) -> None:
    environ = _environ(tmp_path)
    assert find_connection(None, None, environ).api_key is None
    path = key_file(environ, "linux")
    assert path == tmp_path / "state" / "maestro-bridge" / "api-key"
    path.parent.mkdir(parents=True)
    path.write_text("from-file\n")
    assert find_connection(None, None, environ).api_key == "from-file"
    assert find_connection(None, None, environ).key_source == str(path)
    with_env = {**environ, "MAESTRO_BRIDGE_API_KEY": "from-env"}
    assert find_connection(None, None, with_env).api_key == "from-env"
    assert find_connection(None, "from-flag", with_env).api_key == "from-flag"


def test_the_url_comes_from_the_flag_the_variable_or_the_default_port(tmp_path: Path) -> None:
    environ = _environ(tmp_path)
    assert find_connection(None, None, environ).root == DEFAULT_ROOT == "http://127.0.0.1:23335"
    with_env = {**environ, "MAESTRO_BRIDGE_URL": "http://127.0.0.1:4000/v1/"}
    assert find_connection(None, None, with_env).root == "http://127.0.0.1:4000"
    assert find_connection("http://h:5/v1beta", None, with_env).base_url == "http://h:5/v1"


MODELS = [
    ListedModel("gpt-4.1", None, 128000),
    ListedModel("claude-sonnet-4.5", None, 200000),
    ListedModel("gpt-5.5", "gpt-4.1"),
]


def test_the_model_is_the_flag_then_the_configured_one_then_the_editor_default() -> None:
    assert choose_model(MODELS, "claude-sonnet-4.5", "gpt-4.1").why == "--model"
    configured = choose_model(MODELS, None, "claude-sonnet-4.5")
    assert (configured.model, configured.why, configured.context_window) == (
        "claude-sonnet-4.5",
        "configured",
        200000,
    )
    default = choose_model(MODELS, None, "not-listed")
    assert (default.model, default.why) == ("gpt-4.1", "editor default")
    assert choose_model(MODELS, "gpt-5.5", None).context_window == 128000  # its target's
    with pytest.raises(ChoiceError, match="no model 'nope'"):
        choose_model(MODELS, "nope", None)
    with pytest.raises(ChoiceError, match="offers no models"):
        choose_model([], None, None)


def test_codex_asks_for_an_alias_it_knows_of_the_chosen_model() -> None:
    # gpt-4.1 is not in Codex's catalog; the bridge lists gpt-5.5 as an alias of it.
    assert codex_name(MODELS, choose_model(MODELS, None, None)) == "gpt-5.5"
    assert codex_name(MODELS, choose_model(MODELS, "gpt-4.1", None)) == "gpt-4.1"  # as asked
    alone = [ListedModel("sim-echo")]  # no alias: the editor's own id
    assert codex_name(alone, choose_model(alone, None, None)) == "sim-echo"
