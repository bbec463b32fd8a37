"""What stops `maestro-bridge serve`, on each platform.

- "loop" (Linux, macOS): SIGINT (Ctrl-C) and SIGTERM through the event loop's own signal
  handlers, the cleanest way asyncio has.
- "portable" (Windows, or where the loop has no signal handlers): Python's `signal.signal` for
  whatever the platform has of SIGINT (Ctrl-C), SIGBREAK (Ctrl-Break, and what a parent sends
  a process group it started with CREATE_NEW_PROCESS_GROUP) and SIGTERM; and, when stdin is
  a pipe, its end: a parent that closes it asks us to stop (Windows has no SIGTERM to send).

`MAESTRO_STOP_SIGNALS=loop|portable` forces one; the tests run the portable way on Linux.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

STOP_SIGNALS_ENV = "MAESTRO_STOP_SIGNALS"
LOOP = "loop"
PORTABLE = "portable"
# By name: SIGBREAK exists on Windows only, SIGTERM cannot be sent there but can be raised.
PORTABLE_SIGNALS = ("SIGINT", "SIGBREAK", "SIGTERM")


def chosen_way(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> str:
    forced = environ.get(STOP_SIGNALS_ENV, "").strip().lower()
    if forced in (LOOP, PORTABLE):
        return forced
    return PORTABLE if platform == "win32" else LOOP


def install_stop_handlers(
    stop: Callable[[], None], way: str | None = None, stdin_fd: int = 0
) -> Callable[[], None]:
    """Call `stop` (on the running loop) when asked to stop; returns what undoes it."""
    loop = asyncio.get_running_loop()
    if (way or chosen_way()) == LOOP:
        try:
            return _loop_handlers(loop, stop)
        except (NotImplementedError, RuntimeError):  # no loop signals here (or not main thread)
            pass
    return _portable_handlers(loop, stop, stdin_fd)


def _loop_handlers(loop: asyncio.AbstractEventLoop, stop: Callable[[], None]) -> Callable[[], None]:
    installed: list[signal.Signals] = []
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop)
            installed.append(sig)
    except BaseException:
        for sig in installed:
            loop.remove_signal_handler(sig)
        raise

    def undo() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return undo


def _portable_handlers(
    loop: asyncio.AbstractEventLoop, stop: Callable[[], None], stdin_fd: int
) -> Callable[[], None]:
    def on_signal(signum: int, frame: FrameType | None) -> None:
        # Runs between two bytecodes of the main thread, maybe inside the loop's own code:
        # hand `stop` to the loop rather than run it here.
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing left to stop
            loop.call_soon_threadsafe(stop)

    previous: dict[int, Any] = {}
    for name in PORTABLE_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        try:
            previous[sig] = signal.signal(sig, on_signal)
        except (OSError, ValueError):  # not the main thread, or not settable here
            continue
    watch_stdin_end(loop, stop, stdin_fd)

    def undo() -> None:
        for sig, handler in previous.items():
            with contextlib.suppress(OSError, ValueError, TypeError):
                signal.signal(sig, handler)

    return undo


def stdin_is_pipe(fd: int) -> bool:
    """A pipe (or socket) a parent holds the other end of; not a terminal, a file, /dev/null."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def watch_stdin_end(loop: asyncio.AbstractEventLoop, stop: Callable[[], None], fd: int) -> bool:
    """When stdin is a pipe, `stop` once it ends (what it carries is read and dropped: `serve`
    takes no input). A thread, since Windows' loop cannot wait on such a pipe. True if
    watching."""
    if not stdin_is_pipe(fd):
        return False

    def wait_for_end() -> None:
        try:
            while os.read(fd, 1 << 12):
                pass
        except OSError:
            pass  # a broken pipe is an end too
        log.info("stdin closed: stopping")
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(stop)

    threading.Thread(target=wait_for_end, name="stdin-end", daemon=True).start()
    return True
