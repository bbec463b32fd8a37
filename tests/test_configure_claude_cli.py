"""The real Claude Code CLI reads what `configure claude-code` wrote, and nothing else.

A small server stands in for the bridge: it lists models as the bridge does (GitHub Copilot's
Claude ids) and records each request Claude Code sends. `configure claude-code` writes the
settings from that list into a fresh `$CLAUDE_CONFIG_DIR`; Claude Code then runs with no
ANTHROPIC_* variable of its own and must send its requests to that server, with the token
and the model of each family the settings name. (Answering them is the Messages dialect's
job, tested with it; here every request gets a 404.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import processes
import pytest
from claude_code_cli import (
    CLAUDE_TIMEOUT,
    CLEARED_ENV_PREFIXES,
    NO_RETRIES_ENV,
    OFFLINE_ENV,
    claude_or_skip,
)
from recording_server import recording_server

from bridge.cli import main
from bridge.configure.claude_settings import PLACEHOLDER_TOKEN

MODELS = ["gpt-4.1", "claude-sonnet-4", "claude-sonnet-4.5", "claude-opus-41", "claude-haiku-4.5"]


@pytest.fixture(scope="module")
def claude_bin() -> str:
    return claude_or_skip()


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with recording_server(MODELS) as started:
        yield started


def run_claude(claude: str, config_dir: Path, tmp_path: Path, *args: str) -> str:
    """Runs `claude -p` with only `config_dir`'s settings; returns its output, for reports."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith((*CLEARED_ENV_PREFIXES, "MAESTRO_BRIDGE"))
    }
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(OFFLINE_ENV)
    env.update(NO_RETRIES_ENV)
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(config_dir))
    result = processes.run(
        [claude, "-p", "say hi", *args], cwd=home, env=env, timeout=CLAUDE_TIMEOUT
    )
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


@pytest.mark.parametrize("key", [None, "bridge-key-1"], ids=["no-key", "api-key"])
def test_claude_code_asks_the_bridge_for_the_models_the_settings_name(
    claude_bin: str,
    recorder: tuple[str, list[dict[str, Any]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
) -> None:
    root, requests = recorder
    config_dir = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    monkeypatch.delenv("MAESTRO_BRIDGE_API_KEY", raising=False)
    key_args = ["--api-key", key] if key else []
    assert main(["configure", "claude-code", "--url", f"{root}/v1", *key_args]) == 0
    token = f"Bearer {key or PLACEHOLDER_TOKEN}"

    expected = {
        None: "claude-sonnet-4.5",  # the main model: the newest sonnet or opus
        "opus": "claude-opus-41",
        "sonnet": "claude-sonnet-4.5",
        "haiku": "claude-haiku-4.5",
    }
    for shortcut, model in expected.items():
        requests.clear()
        model_args = ["--model", shortcut] if shortcut else []
        output = run_claude(claude_bin, config_dir, tmp_path, *model_args)
        report = f"--model {shortcut}: {requests}\n{output}"
        messages = [r for r in requests if r["path"].startswith("/v1/messages")]
        assert messages, report
        assert {r["model"] for r in messages} == {model}, report
        assert {r["authorization"] for r in messages} == {token}, report
