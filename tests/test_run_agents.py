"""`maestro-bridge run AGENT` with each real agent, offline, on the embedded default: only
`run` points it at the bridge (the user's own configuration points elsewhere, where nothing
answers), the prompt is answered, the agent's tool call goes round through the bridge (the
file it writes is on disk; Aider's edit is applied), and the user's configuration files are
byte-identical afterwards.

One scripted `serve` answers all six (each agent's rule matches its own prompt only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aider_scenario import FILE_NAME
from conftest import BridgeServer, running_bridge_server
from run_cases import CASES, CONTENT, FINAL, MADE, all_rules, fingerprint, run_agent

AFTER_FIX = 'def greet() -> str:\n    return "Hello, world!"\n'


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("run-agents")
    return {name: base / name for name in CASES}


@pytest.fixture(scope="module")
def scripted(folders: dict[str, Path]) -> Iterator[BridgeServer]:
    script = folders["codex"].parent / "script.json"
    import json

    script.write_text(json.dumps({"rules": all_rules(lambda name: folders[name] / "work")}))
    # An unknown name (a background request for a model the agent picks itself) gets sim-echo.
    with running_bridge_server("--script", str(script), "--default-model", "sim-echo") as server:
        yield server


@pytest.mark.parametrize("agent", list(CASES))
def test_run_points_the_agent_at_the_bridge_for_one_run(
    agent: str, scripted: BridgeServer, folders: dict[str, Path]
) -> None:
    case = CASES[agent]
    case.binary.or_skip()
    home, work = folders[agent] / "home", folders[agent] / "work"
    work.mkdir(parents=True)
    home_env = case.home(home, work)
    files = case.config_files(home)
    before = fingerprint(files)
    assert all(before.values()), before  # the user's configuration is there

    run = run_agent(case, scripted.root_url, home_env, work)

    assert run.returncode == 0, run.report
    assert f"maestro-bridge: {agent} on {scripted.root_url}, model sim-echo" in run.stderr
    if agent == "aider":
        assert (work / FILE_NAME).read_text() == AFTER_FIX, run.report
    else:
        made = work / MADE
        assert made.exists() and made.read_text() == CONTENT, run.report
        assert FINAL in run.stdout, run.report
    assert fingerprint(files) == before, run.report
