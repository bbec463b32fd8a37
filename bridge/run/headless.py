"""`--headless`: `maestro-bridge serve` on the embedded default (the headless editor and its
simulated model) for the duration of one run, on a free port.

It runs in a process group of its own, so a Ctrl-C in the terminal reaches the agent and
`run`, and `run` stops the bridge in order afterwards (SIGTERM, Ctrl-Break on Windows; killed
when it does not stop in time). Its output goes to a log file, not over the agent's screen;
the file is kept and named when the bridge fails to start.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from headless_editor.process_group import own_group, polite_stop_signal

START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
_LISTENING = re.compile(r"^Listening on (http://\S+?)/v1\s*$", re.MULTILINE)


class HeadlessError(Exception):
    """The bridge did not start; the message says why and where its log is."""


@contextlib.contextmanager
def headless_bridge(serve_args: list[str]) -> Iterator[str]:
    """A `serve --port 0 SERVE_ARGS` for the `with` block; yields its root URL."""
    log = Path(tempfile.mkstemp(prefix="maestro-bridge-run-", suffix=".log")[1])
    command = [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", *serve_args]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, **own_group()
        )
    failed = True
    try:
        root = _wait_listening(process, log)
        failed = False
        yield root
    finally:
        stop(process)
        if not failed:
            log.unlink(missing_ok=True)


def _wait_listening(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = _LISTENING.search(log.read_text(encoding="utf-8", errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise HeadlessError(
                f"`maestro-bridge serve` exited with {process.returncode} before listening; "
                f"its output is in {log}"
            )
        time.sleep(0.05)
    raise HeadlessError(
        f"`maestro-bridge serve` did not listen within {START_TIMEOUT:.0f} s; see {log}"
    )


def stop(process: subprocess.Popen[bytes]) -> None:
    """Asks the bridge to stop, then kills it when it does not within STOP_TIMEOUT."""
    if process.poll() is None:
        with contextlib.suppress(OSError):
            process.send_signal(polite_stop_signal())
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
