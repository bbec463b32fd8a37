"""Shared fixtures: real `maestro-bridge serve` processes.

`bridge_server` is one server for the whole session; `bridge_server_factory` starts extra
servers with their own arguments (such as `--script FILE`) for the tests that need them.
Every server is started as `python -m bridge.cli serve --port 0`, exactly what a user runs,
and is stopped with SIGTERM: it must exit with code 0 within 10 s and leave no `lsp` child.
When a test fails, the stderr of every server still running is attached to its report.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
LISTENING = re.compile(r"^Listening on (http://\S+/v1)\s*$")
STDERR_TAIL = 20_000  # characters of server stderr shown with a failure


# --------------------------------------------------------------------------- processes


def child_pids(pid: int) -> list[int]:
    """The direct children of `pid`, from /proc (every thread's `children` file)."""
    children: list[int] = []
    for path in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            children.extend(int(token) for token in path.read_text().split())
        except (OSError, ValueError):
            continue
    return children


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [arg.decode(errors="replace") for arg in raw.split(b"\0") if arg]


def is_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (an exited process nobody reaped yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rpartition(")")[2].split()[0]
    return state not in ("Z", "X")


def is_lsp_command(argv: list[str]) -> bool:
    """`... -m bridge.cli lsp` or `maestro-bridge lsp`."""
    return bool(argv) and argv[-1] == "lsp" and any("bridge" in arg for arg in argv)


def lsp_children(pid: int) -> list[int]:
    return [child for child in child_pids(pid) if is_lsp_command(_cmdline(child))]


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


def start_bridge_server(*args: str, env: dict[str, str] | None = None) -> BridgeServer:
    """Start `python -m bridge.cli serve --port 0 ARGS` and wait for its `Listening on` line."""
    stderr_file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed by the process owner
        prefix="maestro-bridge-", suffix=".stderr.log", delete=False
    )
    stderr_path = Path(stderr_file.name)
    command = [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", *args]
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr_file,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )
    stderr_file.close()  # the child holds its own descriptor
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
            process.kill()
            process.wait()
            reason = "timed out" if remaining <= 0 else f"exited with {process.returncode}"
            pytest.fail(
                f"maestro-bridge serve {' '.join(args)} {reason} before listening.\n"
                f"stdout:\n{''.join(kept)}\nstderr:\n{stderr_path.read_text(errors='replace')}"
            )
        match = LISTENING.match(line)
        if match:
            url = match.group(1)

    # The lsp child is spawned before the URL is known, so it is there by now.
    lsp = lsp_children(process.pid)
    server = BridgeServer(url, process, stderr_path, lsp, tuple(args), kept, pump)
    assert lsp, f"no `lsp` child process under maestro-bridge serve (pid {process.pid})"
    _RUNNING.append(server)
    return server


def stop_bridge_server(server: BridgeServer) -> None:
    """SIGTERM; the server must exit 0 within 10 s and leave no `lsp` process behind."""
    if server in _RUNNING:
        _RUNNING.remove(server)
    process = server.process
    already = process.poll()
    if already is None:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            for pid in server.lsp_pids:
                if is_running(pid):
                    os.kill(pid, signal.SIGKILL)
            pytest.fail(
                f"maestro-bridge serve did not exit within {STOP_TIMEOUT} s of SIGTERM.\n"
                f"stderr:\n{server.stderr_text()[-STDERR_TAIL:]}"
            )
    else:
        code = already
    if server.pump is not None:
        server.pump.join(timeout=2.0)
    if process.stdout is not None and (server.pump is None or not server.pump.is_alive()):
        process.stdout.close()
    left = _wait_gone(server.lsp_pids, timeout=2.0)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    log = server.stderr_text()[-STDERR_TAIL:]
    assert already is None, f"maestro-bridge serve had exited early with {already}:\n{log}"
    assert code == 0, f"maestro-bridge serve exited with {code} after SIGTERM:\n{log}"
    assert not left, f"lsp process(es) {left} still running after the server exited:\n{log}"
    server.stderr_path.unlink(missing_ok=True)


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while True:
        left = [pid for pid in pids if is_running(pid) and is_lsp_command(_cmdline(pid))]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


@pytest.fixture(scope="session")
def bridge_server() -> Iterator[BridgeServer]:
    """One real `maestro-bridge serve --port 0` for the whole session."""
    server = start_bridge_server()
    yield server
    stop_bridge_server(server)


StartServer = Callable[..., BridgeServer]


@pytest.fixture
def bridge_server_factory(tmp_path: Path) -> Generator[StartServer, None, None]:
    """`start(*args, script=None, env=None)`: a server of its own, stopped after the test.

    `script` (the `--script` rules as a dict) is written to a file and passed for you.
    """
    started: list[BridgeServer] = []

    def start(
        *args: str, script: dict[str, Any] | None = None, env: dict[str, str] | None = None
    ) -> BridgeServer:
        extra = list(args)
        if script is not None:
            path = tmp_path / f"script-{len(started)}.json"
            path.write_text(json.dumps(script), encoding="utf-8")
            extra += ["--script", str(path)]
        server = start_bridge_server(*extra, env=env)
        started.append(server)
        return server

    yield start
    for server in started:
        stop_bridge_server(server)


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
