"""The session-end leak check (conftest.py, tests/processes.py), proven on inner pytest runs.

Each inner run is a real `pytest` process with this suite's conftest loaded (`-p conftest`),
in a folder of its own. One test there leaks a `maestro-bridge serve` on purpose: the run must
fail, name the server and its language server, and kill both. Meanwhile a bridge this outer
test started (not the inner session's) keeps running untouched, as a developer's own would.
"""

from __future__ import annotations

import os
import re
import sys
import urllib.request
from pathlib import Path

from conftest import REPO_ROOT, StartServer
from processes import SESSION_ENV, is_running, run

LEAKING_TEST = """
import subprocess
import sys


def test_leaves_a_server_running():
    server = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    for line in server.stdout:
        if line.startswith("Listening on"):
            break
    print("LEAKED", server.pid)  # and never stopped
"""

TIDY_TEST = """
def test_uses_a_server_and_stops_it(bridge_server_factory):
    server = bridge_server_factory()
    server.assert_alive()
"""

INNER_TIMEOUT = 120.0


def run_inner_pytest(folder: Path, test: str) -> tuple[int, str]:
    """`pytest -p conftest` on one test file in `folder`; its exit code and output."""
    folder.mkdir()
    (folder / "test_inner.py").write_text(test, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "tests"), str(REPO_ROOT)])}
    done = run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-s", "-q"],
        cwd=folder,
        env=env,
        timeout=INNER_TIMEOUT,
    )
    return done.returncode, done.stdout + done.stderr


def answers(base_url: str) -> bool:
    with urllib.request.urlopen(f"{base_url.removesuffix('/v1')}/health", timeout=10) as reply:
        return bool(reply.status == 200)


def test_a_leaked_server_fails_the_session_and_is_killed(
    tmp_path: Path, bridge_server_factory: StartServer
) -> None:
    outsider = bridge_server_factory()  # not started by the inner session

    code, output = run_inner_pytest(tmp_path / "leaky", LEAKING_TEST)

    assert "1 passed" in output, output  # the test itself passed: only the check fails the run
    assert code == 1, output
    assert "leaked processes" in output, output
    (leaked,) = re.findall(r"LEAKED (\d+)", output)
    reported = re.findall(r"^\s+pid (\d+): (.*)$", output, flags=re.MULTILINE)
    assert len(reported) == 2, output
    commands = dict(reported)
    assert commands[leaked].endswith("-m bridge.cli serve --port 0"), output
    (lsp,) = (pid for pid in commands if pid != leaked)
    assert "bridge.cli lsp" in commands[lsp], output
    assert not is_running(int(leaked)) and not is_running(int(lsp)), "the check kills them"

    outsider.assert_alive()
    assert answers(outsider.base_url)
    assert all(is_running(pid) for pid in outsider.lsp_pids)


def test_a_session_that_stops_its_servers_passes(tmp_path: Path) -> None:
    code, output = run_inner_pytest(tmp_path / "tidy", TIDY_TEST)
    assert code == 0, output
    assert "1 passed" in output and "leaked processes" not in output, output


def test_each_session_has_its_own_marker() -> None:
    marker = os.environ[SESSION_ENV]
    assert re.fullmatch(r"[0-9a-f]{32}", marker)
    probe = run(
        [sys.executable, "-c", f"import os; print(os.environ['{SESSION_ENV}'])"], timeout=30
    )
    assert probe.stdout.strip() == marker  # what the tests start carries it
