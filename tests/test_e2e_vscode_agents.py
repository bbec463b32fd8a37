"""The agent commands in a real VS Code (code-server, the packaged extension): "Run Agent in
Terminal" opens a terminal where `maestro-bridge run codex` starts the real Codex on the
window's bridge; "Show Status" shows `maestro-bridge doctor`'s report, here with the failure
users meet most: VS Code lists no chat models (the test extension's provider offers none, as a
signed-out Copilot does), which `maestro-bridge doctor` on the command line reports the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runs import CODEX, client_env
from processes import HAS_PROC, cmdline, kill_tree, process_table
from vscode_host import VSCodeHost, running_host

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def vscode(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VSCodeHost]:
    codex = Path(CODEX.or_skip())
    home = tmp_path_factory.mktemp("agent-home")
    (home / ".codex").mkdir()
    # The terminal's environment is VS Code's own (its shell environment): Codex's folder goes on
    # its PATH as a user puts it there, with the terminal settings.
    terminal_env = {
        "PATH": f"{codex.parent}{os.pathsep}${{env:PATH}}",
        "CODEX_HOME": str(home / ".codex"),  # the user's own Codex configuration: none yet
    }
    settings = {"terminal.integrated.env.linux": terminal_env}
    # Where "Configure Qwen Code" writes (the extension host's environment).
    env = {"QWEN_HOME": str(home / ".qwen")}
    with running_host(tmp_path_factory.mktemp("vscode"), settings, extra_env=env) as host:
        host.qwen_settings = home / ".qwen" / "settings.json"  # type: ignore[attr-defined]
        yield host


def _codex_under_run(root: str) -> list[int]:
    """Codex processes started by `run` for the bridge at `root` (run becomes Codex: exec)."""
    wanted = f'model_providers.maestro.base_url="{root}/v1"'
    pids = (
        [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()]
        if HAS_PROC
        else [pid for pid, _parent in process_table()]
    )
    return [pid for pid in pids if wanted in cmdline(pid)]


def test_configure_qwen_code_writes_the_bridge_into_its_settings(vscode: VSCodeHost) -> None:
    """The command asks for the model and the tools as a person answers (drive.js picks)."""
    request = {"command": "maestroBridge.configureQwenCode"}
    request_id = vscode.send_control(request)
    vscode.pick("· scripted-model")
    vscode.pick("Models only")
    vscode.control_answer(request_id, request, 60)
    path: Path = vscode.qwen_settings  # type: ignore[attr-defined]
    settings = vscode.wait_for(
        lambda: path.exists() and json.loads(path.read_text()), 30, "settings"
    )
    assert settings["model"] == {"name": "scripted-model"}
    assert settings["security"]["auth"]["selectedType"] == "openai"
    ours = [e for e in settings["modelProviders"]["openai"] if e["baseUrl"] == vscode.base_url]
    assert [e["id"] for e in ours] == _models(vscode)
    assert "mcpServers" not in settings


def _models(vscode: VSCodeHost) -> list[str]:
    from urllib.request import urlopen

    with urlopen(f"{vscode.base_url}/models", timeout=10) as reply:
        return [entry["id"] for entry in json.load(reply)["data"]]


def _doctor(root: str) -> dict[str, dict[str, str]]:
    env = client_env(("MAESTRO_BRIDGE_",), {})
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "doctor", "--json", "--url", root],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return {check["name"]: check for check in json.loads(done.stdout)["checks"]}


def test_show_status_shows_the_doctor_s_report_when_vscode_lists_no_models(
    vscode: VSCodeHost,
) -> None:
    vscode._control({"models": False}, 60)
    try:
        vscode.wait_for(lambda: _models(vscode) == [], 60, "the bridge to list no models")
        request = {"command": "maestroBridge.showStatus"}
        request_id = vscode.send_control(request)
        said = vscode.click("Show Report", timeout=90)
        # The models fail first (Qwen Code, configured above, fails too: its model is gone).
        assert "Doctor: 2 failed, 0 to look at. models: the editor serves no chat models" in said, (
            said
        )
        vscode.control_answer(request_id, request, 60)
        log = _extension_log(vscode)
        assert "[FAIL] models: the editor serves no chat models" in log, log[-3000:]
        assert "sign in to GitHub Copilot" in log

        found = _doctor(vscode.base_url.removesuffix("/v1"))
        assert found["bridge"]["status"] == "ok"
        assert found["models"]["status"] == "fail"
        assert "consent" in found["models"]["fix"] and "remote window" in found["models"]["fix"]
    finally:
        vscode._control({"models": True}, 60)
    vscode.wait_for(lambda: _models(vscode) != [], 60, "the models back")


def _extension_log(vscode: VSCodeHost) -> str:
    logs = vscode.root.glob("user-data/logs/*/exthost*/output_logging_*/*Maestro Bridge.log")
    return "".join(path.read_text(encoding="utf-8", errors="replace") for path in logs)


# Last: the terminal keeps the focus, which the quick picks of the other tests need.
def test_run_agent_in_terminal_starts_codex_on_the_window_s_bridge(vscode: VSCodeHost) -> None:
    root = vscode.base_url.removesuffix("/v1")
    vscode.send_control({"command": "maestroBridge.runAgentInTerminal", "args": ["codex"]})
    pids = vscode.wait_for(lambda: _codex_under_run(root), 60, "Codex in the terminal")
    try:
        argv = cmdline(pids[0])
        assert Path(argv[0]).name in ("codex", "node") or "codex" in " ".join(argv[:2]), argv
        assert 'model="scripted-model"' in argv, argv  # the editor's default: its first model
        assert 'model_provider="maestro"' in argv, argv
    finally:
        for pid in pids:
            kill_tree(pid)
