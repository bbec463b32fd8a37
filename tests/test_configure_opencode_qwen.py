"""`maestro-bridge configure opencode` and `configure qwen`, run as a user runs them against a
real `serve`: the merge keeps the user's own keys, backs the old file up, is idempotent and
writes nothing on `--dry-run`; and then the real agent, started with nothing of the bridge in
its environment (only the file configure wrote tells it), answers a prompt, makes its tool's
round trip through the bridge, and reaches the bridge's MCP server (`--tools`) with the key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import opencode_qwen_cli as oq
import pytest
from cli_runs import CliRun, client_env, run_cli
from configure_runs import run_configure
from conftest import BridgeServer, running_bridge_server
from run_cases import CONTENT, FINAL, MADE, tool_rule

KEY = "configure-oq-key"


def _opencode_env(home: Path) -> dict[str, str]:
    return client_env(oq.OPENCODE_CLEARED, oq.opencode_home_env(home), oq.OPENCODE_OFFLINE_ENV)


def _qwen_env(home: Path) -> dict[str, str]:
    return client_env(oq.QWEN_CLEARED, {"HOME": str(home), "NO_COLOR": "1"})


def _configure(target: str, args: list[str], env: dict[str, str], cwd: Path) -> str:
    done = run_configure(target, args, env, cwd)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return done.stdout


def test_opencode_merge_keeps_the_user_s_keys_and_is_idempotent(
    bridge_server: BridgeServer, tmp_path: Path
) -> None:
    env = _opencode_env(tmp_path)
    path = tmp_path / ".config" / "opencode" / "opencode.json"
    path.parent.mkdir(parents=True)
    other = {"options": {"baseURL": "http://other.example/v1"}}
    theirs: dict[str, object] = {"theme": "tokyonight", "provider": {"other": other}}
    path.write_text(json.dumps(theirs))
    url = ["--url", bridge_server.root_url]

    dry = _configure("opencode", [*url, "--dry-run"], env, tmp_path)
    assert "Dry run: nothing written." in dry
    assert json.loads(path.read_text()) == theirs

    first = _configure("opencode", url, env, tmp_path)
    written = json.loads(path.read_text())
    assert written["theme"] == "tokyonight" and written["provider"]["other"] == other
    ours = written["provider"]["maestro"]
    assert ours["options"] == {"baseURL": bridge_server.base_url, "apiKey": "maestro-bridge-no-key"}
    assert "sim-echo" in ours["models"] and written["model"] == "maestro/sim-echo"
    backups = list(path.parent.glob("opencode.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == theirs, first

    again = _configure("opencode", url, env, tmp_path)
    assert "nothing to change" in again
    assert json.loads(path.read_text()) == written


def test_opencode_refuses_a_jsonc_with_comments(
    bridge_server: BridgeServer, tmp_path: Path
) -> None:
    path = tmp_path / ".config" / "opencode" / "opencode.jsonc"
    path.parent.mkdir(parents=True)
    text = '{\n  // mine\n  "theme": "x"\n}\n'
    path.write_text(text)
    done = run_configure(
        "opencode", ["--url", bridge_server.root_url], _opencode_env(tmp_path), tmp_path
    )
    assert done.returncode == 1
    assert "comments" in done.stderr and str(path) in done.stderr
    assert path.read_text() == text


def test_qwen_merge_keeps_the_user_s_providers_and_is_idempotent(
    bridge_server: BridgeServer, tmp_path: Path
) -> None:
    env = _qwen_env(tmp_path)
    theirs = {"id": "qwen3-coder-plus", "baseUrl": "https://dashscope.example/v1", "envKey": "DS"}
    path = oq.write_qwen_settings(tmp_path, {"modelProviders": {"openai": [theirs]}})
    url = ["--url", bridge_server.root_url, "--model", "sim-reasoning", "--api-key", KEY]

    report = _configure("qwen", url, env, tmp_path)
    assert KEY not in report  # the key is redacted in what is printed
    written = json.loads(path.read_text())
    entries = written["modelProviders"]["openai"]
    assert entries[0] == theirs
    assert {
        "id": "sim-reasoning",
        "name": "sim-reasoning",
        "baseUrl": bridge_server.base_url,
        "envKey": "MAESTRO_BRIDGE_API_KEY",
    } in entries[1:]
    assert written["env"]["MAESTRO_BRIDGE_API_KEY"] == KEY
    assert written["security"]["auth"]["selectedType"] == "openai"
    assert written["model"]["name"] == "sim-reasoning"
    assert written["$version"] == 4 and written["privacy"] == oq.QWEN_OFFLINE_SETTINGS["privacy"]

    assert "nothing to change" in _configure("qwen", url, env, tmp_path)


def _agent_run(agent: str, home: Path, work: Path) -> CliRun:
    """The agent alone (no `run`): what it knows of the bridge is in its configuration."""
    if agent == "opencode":
        command = [oq.OPENCODE.or_skip(), "run", "--auto", "opencode, make the file"]
        env = _opencode_env(home)
    else:
        command = [oq.QWEN.or_skip(), "--approval-mode", "yolo", "qwen, make the file"]
        env = _qwen_env(home)
    return CliRun(command, *run_cli(command, work, env, 150.0))


def _mcp_list(agent: str, home: Path, work: Path) -> CliRun:
    if agent == "opencode":
        command, env = [oq.OPENCODE.or_skip(), "mcp", "list"], _opencode_env(home)
    else:
        command, env = [oq.QWEN.or_skip(), "mcp", "list"], _qwen_env(home)
    return CliRun(command, *run_cli(command, work, env, 60.0))


@pytest.mark.parametrize("agent", ["opencode", "qwen"])
def test_after_configure_alone_the_agent_works_through_the_bridge(
    agent: str, tmp_path: Path
) -> None:
    binary = oq.OPENCODE if agent == "opencode" else oq.QWEN
    binary.or_skip()
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir(parents=True)
    if agent == "qwen":
        oq.write_qwen_settings(home)
    env = _opencode_env(home) if agent == "opencode" else _qwen_env(home)
    name = "write" if agent == "opencode" else "write_file"
    path_key = "filePath" if agent == "opencode" else "file_path"
    rules = [
        tool_rule(
            f"{agent}, make the file", name, {path_key: str(work / MADE), "content": CONTENT}
        ),
        {"match": ".", "reply": [{"type": "text", "text": FINAL}]},
    ]
    script = tmp_path / "rules.json"
    script.write_text(json.dumps({"rules": rules}))
    serve = ("--script", str(script), "--tools", "--api-key", KEY, "--default-model", "sim-echo")
    with running_bridge_server(*serve) as server:
        _configure(agent, ["--url", server.root_url, "--api-key", KEY, "--tools"], env, work)
        run = _agent_run(agent, home, work)
        assert run.returncode == 0, run.report
        assert (work / MADE).exists() and (work / MADE).read_text() == CONTENT, run.report
        assert FINAL in run.stdout, run.report
        listed = _mcp_list(agent, home, work)
        assert "maestro" in listed.stdout + listed.stderr, listed.report
        assert "connected" in (listed.stdout + listed.stderr).lower(), listed.report
    assert os.environ.get("MAESTRO_BRIDGE_API_KEY") != KEY  # nothing of ours leaked into the env
