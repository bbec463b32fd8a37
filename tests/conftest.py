"""Shared fixtures: real `maestro-bridge serve` processes, and the session's leak check.

`bridge_server` is one server for the whole session; `bridge_server_factory` starts extra
servers with their own arguments (such as `--script FILE`) for the tests that need them, and
`running_bridge_server` is the same as a context manager. Every server is started as
`python -m bridge.cli serve --port 0`, exactly what a user runs, and is stopped with SIGTERM:
it must exit with code 0 within 10 s and leave no `lsp` child. Whatever happens in the test,
the server and its language server are gone when the fixture or `with` block ends.
When a test fails, the stderr of every server still running is attached to its report.

At the end of the session, any `maestro-bridge` process (serve or lsp) this session started
that is still running fails the run, by name, and is killed (see tests/processes.py).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest
from processes import (
    SESSION_ENV,
    child_pids,
    cmdline,
    describe,
    is_lsp_command,
    is_running,
    kill_tree,
    leaked_bridge_processes,
)

from headless_editor.process_group import own_group, polite_stop_signal

REPO_ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
LISTENING = re.compile(r"^Listening on (http://\S+/v1)\s*$")
STDERR_TAIL = 20_000  # characters of server stderr shown with a failure
SERVE = (sys.executable, "-m", "bridge.cli", "serve")

# The usage ledger of every bridge the tests start (in this process or not) goes to a folder
# of this run's, never to the user's state folder (bridge/usage/location.py).
TEST_STATE_HOME = tempfile.mkdtemp(prefix="maestro-test-state-")
os.environ["XDG_STATE_HOME"] = TEST_STATE_HOME
atexit.register(shutil.rmtree, TEST_STATE_HOME, ignore_errors=True)

__all__ = ["child_pids", "is_lsp_command", "is_running"]  # also used by other test modules


# --------------------------------------------------------------------------- processes


def lsp_children(pid: int) -> list[int]:
    return [child for child in child_pids(pid) if is_lsp_command(cmdline(child))]


@dataclass
class BridgeServer:
    """A running `maestro-bridge serve`."""

    base_url: str  # http://127.0.0.1:PORT/v1
    process: subprocess.Popen[str]
    stderr_path: Path
    lsp_pids: list[int]
    args: tuple[str, ...] = ()
    stdout_lines: list[str] = field(default_factory=list)
    pump: threading.Thread | None = None
    check_stop: bool = True  # stopped with SIGTERM and checked when its fixture ends

    def release(self) -> None:
        """The test ends this server itself (a signal, a kill): no clean-stop check at the
        end, only the certainty that it and its language server are gone."""
        self.check_stop = False
        if self in _RUNNING:
            _RUNNING.remove(self)

    @property
    def root_url(self) -> str:
        """The URL without `/v1` (where `/health` lives)."""
        return self.base_url.removesuffix("/v1")

    def stderr_text(self) -> str:
        try:
            return self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    def assert_alive(self) -> None:
        assert self.process.poll() is None, (
            f"maestro-bridge serve exited with {self.process.returncode}:\n{self.stderr_text()}"
        )


_RUNNING: list[BridgeServer] = []


def _pump_stdout(stream: IO[str], lines: queue.Queue[str | None], keep: list[str]) -> None:
    """Reads the server's stdout to its end, so the pipe never fills."""
    for line in stream:
        keep.append(line)
        lines.put(line)
    lines.put(None)


def start_bridge_server(
    *args: str,
    env: dict[str, str] | None = None,
    command: tuple[str, ...] | list[str] = SERVE,
    cwd: Path = REPO_ROOT,
) -> BridgeServer:
    """Start `COMMAND --port 0 ARGS` and wait for its `Listening on` line.

    Only for `running_bridge_server` and the fixtures: they make sure the server ends.
    """
    stderr_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by the process owner
        prefix="maestro-bridge-", suffix=".stderr.log", delete=False
    )
    stderr_path = Path(stderr_file.name)
    process = subprocess.Popen(
        [*command, "--port", "0", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr_file,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        **own_group(),  # on Windows, what lets CTRL_BREAK_EVENT reach it alone
    )
    stderr_file.close()  # the child holds its own descriptor
    try:
        return _wait_listening(process, stderr_path, args)
    except BaseException:
        kill_tree(process.pid)  # the language server too, if it was spawned already
        process.wait()
        raise


def _wait_listening(
    process: subprocess.Popen[str], stderr_path: Path, args: tuple[str, ...]
) -> BridgeServer:
    assert process.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()
    kept: list[str] = []
    pump = threading.Thread(target=_pump_stdout, args=(process.stdout, lines, kept), daemon=True)
    pump.start()

    deadline = time.monotonic() + STARTUP_TIMEOUT
    url: str | None = None
    while url is None:
        remaining = deadline - time.monotonic()
        try:
            line = lines.get(timeout=max(remaining, 0.01))
        except queue.Empty:
            line = None
            remaining = 0
        if line is None:  # stdout closed, or timed out
            reason = "timed out" if remaining <= 0 else f"exited with {process.poll()}"
            pytest.fail(
                f"maestro-bridge serve {' '.join(args)} {reason} before listening.\n"
                f"stdout:\n{''.join(kept)}\nstderr:\n{stderr_path.read_text(errors='replace')}"
            )
        match = LISTENING.match(line)
        if match:
            url = match.group(1)

    # The lsp child is spawned before the URL is known, so it is there by now.
    lsp = lsp_children(process.pid)
    assert lsp, f"no `lsp` child process under maestro-bridge serve (pid {process.pid})"
    server = BridgeServer(url, process, stderr_path, lsp, tuple(args), kept, pump)
    _RUNNING.append(server)
    return server


def stop_bridge_server(server: BridgeServer) -> None:
    """SIGTERM (Windows: CTRL_BREAK_EVENT); the server must exit 0 within 10 s and leave no
    `lsp` process behind."""
    server.release()
    process = server.process
    already = code = process.poll()
    if already is None:
        process.send_signal(polite_stop_signal())
        try:
            code = process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            log = server.stderr_text()[-STDERR_TAIL:]
            end_bridge_server(server)
            pytest.fail(
                f"maestro-bridge serve did not exit within {STOP_TIMEOUT} s of SIGTERM.\n"
                f"stderr:\n{log}"
            )
    left = _wait_gone(server.lsp_pids, timeout=2.0)
    log = server.stderr_text()[-STDERR_TAIL:]
    end_bridge_server(server)  # kills what is left
    assert already is None, f"maestro-bridge serve had exited early with {already}:\n{log}"
    assert code == 0, f"maestro-bridge serve exited with {code} after SIGTERM:\n{log}"
    assert not left, f"lsp process(es) {left} still running after the server exited:\n{log}"


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = [pid for pid in pids if is_running(pid) and is_lsp_command(cmdline(pid))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def end_bridge_server(server: BridgeServer) -> None:
    """Whatever state it is in, the server and its language server end now (no checks)."""
    server.release()
    if server.process.poll() is None:
        kill_tree(server.process.pid)
    server.process.wait()
    for pid in server.lsp_pids:  # its own session: no longer under `serve` once that died
        if is_running(pid) and is_lsp_command(cmdline(pid)):
            kill_tree(pid)
    if server.pump is not None:
        server.pump.join(timeout=2.0)
    if server.process.stdout is not None and not (server.pump and server.pump.is_alive()):
        server.process.stdout.close()
    server.stderr_path.unlink(missing_ok=True)


@contextlib.contextmanager
def running_bridge_server(
    *args: str,
    env: dict[str, str] | None = None,
    command: tuple[str, ...] | list[str] = SERVE,
    cwd: Path = REPO_ROOT,
) -> Iterator[BridgeServer]:
    """A server for the `with` block. When the block ends normally, it is stopped with the
    clean-stop check (unless the test ended it itself); however the block ends, it is gone."""
    server = start_bridge_server(*args, env=env, command=command, cwd=cwd)
    try:
        yield server
        if server.check_stop:
            stop_bridge_server(server)
    finally:
        end_bridge_server(server)


@pytest.fixture(scope="session")
def bridge_server() -> Iterator[BridgeServer]:
    """One real `maestro-bridge serve --port 0` for the whole session."""
    with running_bridge_server() as server:
        yield server


StartServer = Callable[..., BridgeServer]


@pytest.fixture
def bridge_server_factory(tmp_path: Path) -> Generator[StartServer, None, None]:
    """`start(*args, script=None, env=None)`: a server of its own, stopped after the test.

    `script` (the `--script` rules as a dict) is written to a file and passed for you.
    """
    scripts = itertools.count()
    with contextlib.ExitStack() as servers:

        def start(
            *args: str, script: dict[str, Any] | None = None, env: dict[str, str] | None = None
        ) -> BridgeServer:
            extra = list(args)
            if script is not None:
                path = tmp_path / f"script-{next(scripts)}.json"
                path.write_text(json.dumps(script), encoding="utf-8")
                extra += ["--script", str(path)]
            return servers.enter_context(running_bridge_server(*extra, env=env))

        yield start


# --------------------------------------------------------------------------- leak check


def pytest_configure(config: pytest.Config) -> None:
    # A new id for every session, even one started by a test of another session: what this
    # session starts is marked with it (tests/processes.py).
    os.environ[SESSION_ENV] = uuid.uuid4().hex


_LEAKED = pytest.StashKey[list[str]]()


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    leaked = leaked_bridge_processes(os.environ[SESSION_ENV])
    if not leaked:
        return
    descriptions = [describe(pid) for pid in leaked]
    for pid in leaked:
        kill_tree(pid)
    session.config.stash[_LEAKED] = descriptions
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if session.config.pluginmanager.get_plugin("terminalreporter") is None:
        print(_leak_report(descriptions), file=sys.stderr)


def _leak_report(descriptions: list[str]) -> str:
    lines = "\n".join(f"  {line}" for line in descriptions)
    return (
        "maestro-bridge processes started by this test session were still running at its end"
        f" (killed now):\n{lines}"
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    descriptions = terminalreporter.config.stash.get(_LEAKED, None)
    if descriptions:
        terminalreporter.section("leaked processes", sep="=", red=True, bold=True)
        terminalreporter.line(_leak_report(descriptions), red=True)


# --------------------------------------------------------------------------- reporting


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.failed and _RUNNING:
        for server in _RUNNING:
            text = server.stderr_text()[-STDERR_TAIL:]
            label = " ".join(server.args) or "(no args)"
            report.sections.append(
                (f"maestro-bridge serve {label} pid {server.process.pid} stderr", text)
            )
