"""How `serve` is asked to stop on each platform (bridge/stop_signals.py), and the process
groups its children run in (headless_editor/process_group.py). Windows' way (Python's own
signal handlers, a parent closing stdin) is forced here with MAESTRO_STOP_SIGNALS=portable.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import (
    LISTENING,
    REPO_ROOT,
    SERVE,
    STOP_TIMEOUT,
    StartServer,
    is_running,
    lsp_children,
)
from processes import reaped

from bridge.stop_signals import (
    LOOP,
    PORTABLE,
    STOP_SIGNALS_ENV,
    chosen_way,
    install_stop_handlers,
    stdin_is_pipe,
)
from headless_editor.process_group import (
    CREATE_NEW_PROCESS_GROUP,
    CTRL_BREAK_EVENT,
    own_group,
    polite_stop_signal,
)

PORTABLE_ENV = {STOP_SIGNALS_ENV: PORTABLE}


def test_the_platform_chooses_and_the_switch_forces() -> None:
    assert chosen_way({}, "win32") == PORTABLE
    assert chosen_way({}, "linux") == LOOP
    assert chosen_way({}, "darwin") == LOOP
    assert chosen_way({STOP_SIGNALS_ENV: "portable"}, "linux") == PORTABLE
    assert chosen_way({STOP_SIGNALS_ENV: " Loop "}, "win32") == LOOP
    assert chosen_way({STOP_SIGNALS_ENV: "bogus"}, "linux") == LOOP


def test_process_groups_and_polite_stops_per_platform() -> None:
    assert own_group("linux") == {"start_new_session": True}
    assert own_group("darwin") == {"start_new_session": True}
    assert own_group("win32") == {"creationflags": CREATE_NEW_PROCESS_GROUP}
    assert polite_stop_signal("linux") == signal.SIGTERM
    assert polite_stop_signal("win32") == CTRL_BREAK_EVENT
    if sys.platform == "win32":  # the numbers we wrote down are Windows' own
        assert subprocess.CREATE_NEW_PROCESS_GROUP == CREATE_NEW_PROCESS_GROUP
        assert signal.CTRL_BREAK_EVENT == CTRL_BREAK_EVENT


# --------------------------------------------------------------------------- in this process


async def test_portable_handlers_stop_on_each_signal_and_undo() -> None:
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in (signal.SIGINT, signal.SIGTERM):
        stopped = asyncio.Event()
        undo = install_stop_handlers(stopped.set, way=PORTABLE, stdin_fd=-1)
        try:
            signal.raise_signal(sig)
            await asyncio.wait_for(stopped.wait(), 5)
        finally:
            undo()
        assert {s: signal.getsignal(s) for s in before} == before


async def test_portable_handlers_stop_when_a_piped_stdin_ends() -> None:
    read_end, write_end = os.pipe()
    try:
        assert stdin_is_pipe(read_end)
        stopped = asyncio.Event()
        undo = install_stop_handlers(stopped.set, way=PORTABLE, stdin_fd=read_end)
        try:
            os.write(write_end, b"ignored input\n")
            await asyncio.sleep(0.2)
            assert not stopped.is_set()  # input is no request to stop: only its end
            os.close(write_end)
            await asyncio.wait_for(stopped.wait(), 5)
        finally:
            undo()
    finally:
        os.close(read_end)


def test_a_terminal_file_or_nothing_is_no_pipe() -> None:
    with open(os.devnull, "rb") as devnull:
        assert not stdin_is_pipe(devnull.fileno())
    assert not stdin_is_pipe(-1)


# --------------------------------------------------------------------------- real `serve`


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_stops_cleanly_on_signals_the_portable_way(
    bridge_server_factory: StartServer, sig: signal.Signals
) -> None:
    server = bridge_server_factory(env=PORTABLE_ENV)
    server.release()  # this test stops it itself
    server.process.send_signal(sig)
    assert server.process.wait(timeout=STOP_TIMEOUT) == 0, server.stderr_text()
    for pid in server.lsp_pids:
        assert not is_running(pid)
    assert "Traceback" not in server.stderr_text(), server.stderr_text()


def test_serve_stops_when_its_parent_closes_stdin() -> None:
    """Windows has no SIGTERM a parent could send: closing the pipe it gave as stdin asks
    `serve` to stop, in order (exit 0, its language server gone)."""
    process = subprocess.Popen(
        [*SERVE, "--port", "0"],
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **PORTABLE_ENV},
    )
    with reaped(process):
        assert process.stdin is not None and process.stdout is not None
        for line in process.stdout:
            if LISTENING.match(line):
                break
        else:
            pytest.fail(f"serve never listened: {process.communicate(timeout=10)}")
        lsp = lsp_children(process.pid)
        assert lsp
        time.sleep(0.5)
        assert process.poll() is None  # an open stdin keeps it running
        process.stdin.close()
        process.stdin = None  # closed: nothing for communicate() to flush
        _, stderr = process.communicate(timeout=STOP_TIMEOUT)
        assert process.returncode == 0, stderr
        assert "stdin closed: stopping" in stderr
        assert not [pid for pid in lsp if is_running(pid)]
