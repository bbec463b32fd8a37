"""The servers under test (the two baselines, the bridge) as real processes, and what /proc says."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bench.dialects import RESPONSES, Dialect
from headless_editor.spawn import python_module_command

REPO_ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0
if sys.platform == "win32":  # no /proc there: cpu_seconds and rss_bytes read 0
    _TICKS = _PAGE = 1
else:
    _TICKS = os.sysconf("SC_CLK_TCK")
    _PAGE = os.sysconf("SC_PAGE_SIZE")

COMMANDS = {
    # `bench` is no installed package: it runs from this checkout (cwd=REPO_ROOT below).
    "baseline": [sys.executable, "-m", "bench.baseline", "--port"],
    "baseline-orjson": [sys.executable, "-m", "bench.baseline", "--encoder", "orjson", "--port"],
    # The bridge as installed, started the way its own language server is (no `-m`, so no
    # folder can shadow the package).
    "bridge": python_module_command("bridge.cli", "serve", "--port"),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (all its threads), from /proc/PID/stat."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime


def rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except OSError:
        return 0


def child_pids(pid: int) -> list[int]:
    children: list[int] = []
    for path in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            children.extend(int(token) for token in path.read_text().split())
        except (OSError, ValueError):
            continue
    return children


@dataclass
class Server:
    """A started server; `pids` are every process serving it (the bridge has two)."""

    name: str  # its column: a baseline's name or the dialect the bridge is measured in
    process: subprocess.Popen[bytes]
    url: str  # http://127.0.0.1:PORT
    start_seconds: float
    log: Path
    pids: list[int] = field(default_factory=list)

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def rss_bytes(self) -> int:
        return sum(rss_bytes(pid) for pid in self.pids)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in self.pids[1:]:  # the bridge's language server leaves with its editor
            deadline = time.monotonic() + 5
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        self.log.unlink(missing_ok=True)


def _answers(url: str, dialect: Dialect) -> bool:
    request = urllib.request.Request(
        f"{url}{dialect.models_path}", headers=dict(dialect.models_headers)
    )
    try:
        # The model list needs the editor's answer: the whole chain is up, not just the socket.
        with urllib.request.urlopen(request, timeout=1) as reply:
            return bool(reply.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def start(
    name: str, kind: str, dialect: Dialect = RESPONSES, extra: tuple[str, ...] = ()
) -> Server:
    """Start a server (`kind`: a key of COMMANDS, with `extra` arguments) on a free port; time
    from spawning it until the model list of `dialect` answers."""
    port = free_port()
    log = Path(tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".log")[1])
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as log_file:
        started = time.perf_counter()
        process = subprocess.Popen(
            [*COMMANDS[kind], str(port), *extra],
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
        deadline = started + START_TIMEOUT
        while not _answers(url, dialect):
            if process.poll() is not None or time.perf_counter() > deadline:
                process.kill()
                process.wait()
                raise RuntimeError(f"{name} did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.002)
        elapsed = time.perf_counter() - started
    server = Server(name, process, url, elapsed, log, [process.pid, *child_pids(process.pid)])
    return server
