"""The Aider harness itself (tests/aider_cli.py): its environment, its command, and that a run
that times out leaves no process behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from aider_cli import (
    MODEL_INFO_CACHE,
    aider_command,
    aider_env,
    aider_or_skip,
    prepare_home,
    run_aider,
)
from aider_scenario import FILE_NAME, PROMPT, SIM_ECHO, make_repository
from chat_capture import chat_capture_server
from cli_runs import process_group_members


def test_the_environment_drops_the_developers_settings_and_proxies(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("OPENAI_API_BASE", "AIDER_MODEL", "LITELLM_LOG", "https_proxy", "GIT_DIR"):
        monkeypatch.setenv(name, "from the developer")
    env = aider_env(tmp_path)
    assert not {"OPENAI_API_BASE", "AIDER_MODEL", "LITELLM_LOG", "https_proxy", "GIT_DIR"} & set(
        env
    )
    assert env["HOME"] == str(tmp_path)
    assert env["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"


def test_the_command_keeps_aiders_defaults_but_the_offline_switches() -> None:
    command = aider_command("aider", "http://127.0.0.1:1/v1", "openai/m", "hi", ("a.py",))
    assert command[-3:] == ["--message", "hi", "a.py"]
    for switch in ("--no-check-update", "--no-analytics", "--no-show-release-notes"):
        assert switch in command
    # Streaming, the edit format, the weak model and auto commits stay Aider's choice.
    for setting in ("--no-stream", "--edit-format", "--weak-model", "--no-auto-commits"):
        assert setting not in command


def test_the_home_describes_an_unknown_model_only(tmp_path: Path) -> None:
    prepare_home(tmp_path / "unknown", "openai/sim-echo")
    prepare_home(tmp_path / "known", None)
    unknown = (tmp_path / "unknown" / MODEL_INFO_CACHE).read_text(encoding="utf-8")
    known = (tmp_path / "known" / MODEL_INFO_CACHE).read_text(encoding="utf-8")
    assert "openai/sim-echo" in unknown
    assert "openai/" not in known and known != "{}"  # Aider downloads when it is empty


def test_a_run_that_times_out_leaves_no_process(tmp_path: Path) -> None:
    aider = aider_or_skip()
    workdir, home = tmp_path / "work", tmp_path / "home"
    make_repository(workdir, home)
    with chat_capture_server() as server:
        run = run_aider(
            aider,
            server.base_url,
            PROMPT,
            cwd=workdir,
            home=home,
            model=SIM_ECHO.name,
            files=(FILE_NAME,),
            timeout=1.0,  # Aider needs several seconds to start
        )
    assert run.timed_out, run.report
    assert process_group_members(run.pid) == []
