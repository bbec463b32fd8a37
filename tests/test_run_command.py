"""`maestro-bridge run` itself, with the real Codex: no bridge (it says how to get one),
`--headless` (a `serve` of the run's own, gone afterwards), the agent's exit code and a SIGTERM
passed through, and the child-process path Windows takes (forced here).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runs import CODEX, client_env
from configure_runs import free_port
from conftest import BridgeServer
from processes import (
    SESSION_ENV,
    cmdline,
    descendants,
    is_running,
    kill_tree,
    session_bridge_processes,
)

from bridge.run import launch
from headless_editor.process_group import own_group

PROMPT = "codex, answer without tools"
ANSWER = "Answered on a headless bridge."


def _codex_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / ".codex").mkdir(exist_ok=True)
    path = f"{Path(CODEX.or_skip()).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    own = {"HOME": str(home), "CODEX_HOME": str(home / ".codex"), "PATH": path, "NO_COLOR": "1"}
    return client_env(("CODEX_", "OPENAI_", "MAESTRO_BRIDGE_"), own)


def _run_command(url: str, *extra: str, agent_args: tuple[str, ...] = ()) -> list[str]:
    command = [sys.executable, "-m", "bridge.cli", "run", "codex", "--url", url, *extra]
    return [*command, "--", *agent_args]


def _exec_args(work: Path, prompt: str = PROMPT) -> tuple[str, ...]:
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")
    return ("exec", "--skip-git-repo-check", "--sandbox", sandbox, "--cd", str(work), prompt)


def _script(tmp_path: Path, rules: list[dict[str, object]]) -> Path:
    path = tmp_path / "rules.json"
    path.write_text(json.dumps({"rules": rules}))
    return path


def _headless_left(marker: str) -> list[int]:
    """This session's bridge processes whose command line names `marker` (the script file)."""
    return [
        pid
        for pid in session_bridge_processes(os.environ[SESSION_ENV])
        if is_running(pid) and any(marker in arg for arg in cmdline(pid))
    ]


def test_without_a_bridge_run_says_how_to_start_one(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    done = subprocess.run(
        _run_command(url, agent_args=_exec_args(tmp_path)),
        env=_codex_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert f"No Maestro Bridge answers at {url}" in done.stderr
    assert "--headless" in done.stderr


def test_headless_starts_serve_for_the_run_and_stops_it_after(tmp_path: Path) -> None:
    script = _script(tmp_path, [{"match": ".", "reply": [{"type": "text", "text": ANSWER}]}])
    url = f"http://127.0.0.1:{free_port()}"
    command = _run_command(
        url, "--headless", f"--serve-arg=--script={script}", agent_args=_exec_args(tmp_path)
    )
    done = subprocess.run(
        command,
        env=_codex_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert ANSWER in done.stdout, done.stderr
    assert _headless_left(str(script)) == []


def test_the_agent_exit_code_comes_back(scripted_root: str, tmp_path: Path) -> None:
    done = subprocess.run(
        _run_command(scripted_root, agent_args=("--no-such-flag",)),
        env=_codex_env(tmp_path / "home"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr  # Codex's own usage error
    assert "--no-such-flag" in done.stderr


@pytest.fixture
def scripted_root(bridge_server: BridgeServer) -> str:
    return bridge_server.root_url


def test_sigterm_reaches_the_agent_and_the_headless_bridge_stops(tmp_path: Path) -> None:
    slow: dict[str, object] = {
        "match": ".",
        "reply": [{"type": "pause", "seconds": 120}, {"type": "text", "text": "late"}],
    }
    script = _script(tmp_path, [slow])
    url = f"http://127.0.0.1:{free_port()}"
    command = _run_command(
        url, "--headless", f"--serve-arg=--script={script}", agent_args=_exec_args(tmp_path)
    )
    process = subprocess.Popen(
        command,
        env=_codex_env(tmp_path / "home"),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **own_group(),
    )
    try:
        agent = _wait_for_codex(process.pid)
        time.sleep(2.0)  # Codex has sent its request: the model is paused
        process.send_signal(signal.SIGTERM)  # to `run` alone, not its group
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            kill_tree(process.pid)
            process.wait()
    assert process.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM, 1), stderr
    assert not is_running(agent), "the agent outlived run"
    assert _headless_left(str(script)) == []


def _wait_for_codex(pid: int) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for child in descendants(pid):
            if any(Path(arg).name == "codex" for arg in cmdline(child)[:2]):
                return child
        time.sleep(0.1)
    pytest.fail("no codex process under run")


def test_windows_runs_the_agent_as_a_child_not_by_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced on this machine: with exec, this test's own process would become the program."""
    monkeypatch.setattr(sys, "platform", "win32")
    program = [sys.executable, "-c", "import sys; sys.exit(7)"]
    assert launch.run_foreground(program, dict(os.environ), may_exec=True) == 7
    assert launch.exit_like(7) == 7


def test_user_args_go_after_run_s_own() -> None:
    """`--` ends run's options: what follows is the agent's, even run's own option names."""
    from bridge.run.argv import split_agent_args

    argv = ["run", "codex", "--model", "a", "--", "exec", "--model", "b"]
    assert split_agent_args(argv) == (["run", "codex", "--model", "a"], ["exec", "--model", "b"])


def test_an_agent_that_is_not_installed_is_named_with_its_install_command(
    bridge_server: BridgeServer, tmp_path: Path
) -> None:
    env = client_env(("MAESTRO_BRIDGE_",), {"PATH": str(tmp_path)})  # no agent on PATH
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "run", "opencode", "--url", bridge_server.root_url],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "opencode is not on PATH: install it (npm install -g opencode-ai)" in done.stderr
