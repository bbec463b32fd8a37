"""The agent in the foreground, with the terminal, its signals and its exit code.

On POSIX, when nothing is left to clean up afterwards, `run` becomes the agent (exec): the
terminal, the signals and the exit status are the agent's own. Otherwise (on Windows, with a
bridge `run` started, with files of the run to remove) the agent is a child in the same
process group, so the terminal's Ctrl-C reaches it directly; `run` ignores Ctrl-C meanwhile,
passes SIGTERM and SIGHUP on, cleans up once the agent has exited, and exits as it did (by
the same signal, on POSIX).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from types import FrameType


def run_foreground(argv: list[str], env: dict[str, str], may_exec: bool) -> int:
    if may_exec and sys.platform != "win32":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execvpe(argv[0], argv, env)  # no return
    return run_child(argv, env)


def run_child(argv: list[str], env: dict[str, str]) -> int:
    """The agent's exit code; a POSIX agent ended by a signal gives -N, as subprocess does."""
    process = subprocess.Popen(argv, env=env)
    with _passed_on(process):
        return process.wait()


@contextlib.contextmanager
def _passed_on(process: subprocess.Popen[bytes]) -> Iterator[None]:
    names = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"]
    wanted = [getattr(signal, name) for name in names if hasattr(signal, name)]

    def forward(number: int, _frame: FrameType | None) -> None:
        if number == getattr(signal, "SIGINT", None):
            return  # the terminal sent it to the agent as well
        with contextlib.suppress(OSError):
            process.send_signal(number)

    previous = {}
    for number in wanted:
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            previous[number] = signal.signal(number, forward)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def exit_like(code: int) -> int:
    """Ends this process as the agent ended: by the same signal for -N (POSIX), else `code`."""
    if code < 0 and sys.platform != "win32":
        number = -code
        sys.stdout.flush()
        sys.stderr.flush()
        with contextlib.suppress(ValueError, OSError):
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        return 128 + number
    return code
