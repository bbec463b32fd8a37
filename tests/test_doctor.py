"""`maestro-bridge doctor`, run as a user runs it, with each failing check produced for real:
a stopped bridge, a wrong key, an agent whose configuration points elsewhere (or asks for a
model the bridge does not have), a budget near its limit; and the key found in the file
`serve` writes into the state folder. (No models at all: tests/test_e2e_vscode_doctor.py,
in VS Code, the only editor whose model list can be empty.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_runs import client_env
from conftest import BridgeServer, running_bridge_server, start_bridge_server, stop_bridge_server
from opencode_qwen_cli import write_qwen_settings
from plain_http import post

KEY = "doctor-key"


def doctor(
    url: str, home: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`maestro-bridge doctor --url URL --json ARGS` in an isolated HOME (its state folder too)."""
    own = {
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PATH": path if path is not None else os.environ.get("PATH", ""),
    }
    env = client_env(("MAESTRO_BRIDGE_", "CODEX_", "CLAUDE_", "GEMINI_", "QWEN_"), own)
    command = [sys.executable, "-m", "bridge.cli", "doctor", "--url", url, "--json", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=home)


def checks(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    report = json.loads(done.stdout)
    assert report["ok"] is (done.returncode == 0), done.stdout
    return {check["name"]: check for check in report["checks"]}


def test_a_stopped_bridge_fails_the_first_check_and_says_how_to_start_one(tmp_path: Path) -> None:
    server = start_bridge_server()
    root = server.root_url
    stop_bridge_server(server)
    done = doctor(root, tmp_path)
    assert done.returncode == 1
    found = checks(done)
    assert found["bridge"]["status"] == "fail"
    assert root in found["bridge"]["detail"]
    assert "maestro-bridge serve" in found["bridge"]["fix"]
    assert "models" not in found  # nothing more is asked of a bridge that is not there


def test_a_wrong_key_fails_and_the_key_file_of_serve_is_found(tmp_path: Path) -> None:
    with running_bridge_server("--api-key", KEY, "--tools") as server:
        wrong = checks(doctor(server.root_url, tmp_path, "--api-key", "not-the-key"))
        assert wrong["key"]["status"] == "fail"
        assert "refused the key from --api-key" in wrong["key"]["detail"]

        none = checks(doctor(server.root_url, tmp_path))
        assert none["key"]["status"] == "fail"
        assert "wants an API key" in none["key"]["detail"]

        key_file = tmp_path / ".local" / "state" / "maestro-bridge" / "api-key"
        key_file.parent.mkdir(parents=True)
        key_file.write_text(KEY + "\n")
        done = doctor(server.root_url, tmp_path)
        found = checks(done)
        assert found["key"] == {
            "name": "key",
            "status": "ok",
            "detail": f"accepted (from {key_file})",
            "fix": "",
        }
        assert found["models"]["status"] == "ok" and "sim-echo" in found["models"]["detail"]
        assert found["mcp"]["status"] == "ok"  # the key reaches the MCP server too
        assert done.returncode == 0, done.stdout


def test_agents_pointing_elsewhere_or_at_a_missing_model_fail(
    bridge_server: BridgeServer, tmp_path: Path
) -> None:
    codex_home = tmp_path / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.5"\nmodel_provider = "other"\n\n'
        '[model_providers.other]\nbase_url = "http://127.0.0.1:9/v1"\n'
    )
    write_qwen_settings(
        tmp_path,
        {
            "model": {"name": "no-such-model"},
            "modelProviders": {
                "openai": [{"id": "no-such-model", "baseUrl": bridge_server.base_url}]
            },
        },
    )
    programs = tmp_path / "bin"  # `codex` and `qwen` installed: their programs on PATH
    programs.mkdir()
    for name in ("codex", "qwen"):
        program = programs / name
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    done = doctor(bridge_server.root_url, tmp_path, path=str(programs))
    found = checks(done)
    assert done.returncode == 1
    codex = found["agent codex"]
    assert codex["status"] == "fail" and "http://127.0.0.1:9/v1" in codex["detail"]
    assert "maestro-bridge run codex" in codex["fix"]
    qwen = found["agent qwen"]
    assert qwen["status"] == "fail" and "'no-such-model'" in qwen["detail"]
    assert "configure qwen --model" in qwen["fix"]
    assert "agent opencode" not in found  # neither installed nor configured


def test_a_budget_near_its_limit_is_reported(tmp_path: Path) -> None:
    with running_bridge_server("--daily-token-budget", "400") as server:
        body = {"model": "sim-echo", "messages": [{"role": "user", "content": "word " * 200}]}
        post(f"{server.base_url}/chat/completions", body)
        found = checks(doctor(server.root_url, tmp_path))
    assert found["mcp"]["status"] == "info" and "--tools" in found["mcp"]["fix"]  # tools off
    budget = [check for name, check in found.items() if name.startswith("budget")]
    assert budget and budget[0]["status"] in ("warn", "fail"), found
    assert "of 400 tokens this day" in budget[0]["detail"]
