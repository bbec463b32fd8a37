"""How `maestro-bridge serve` and its language server stop: Ctrl-C, and a parent that dies."""

from __future__ import annotations

import signal
import socket
import time

from conftest import STOP_TIMEOUT, StartServer, is_running


def _port(base_url: str) -> int:
    return int(base_url.rsplit(":", 1)[1].split("/")[0])


def _port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_ctrl_c_stops_both_processes_cleanly(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory()
    server.release()  # this test stops it itself
    port = _port(server.base_url)
    server.process.send_signal(signal.SIGINT)
    assert server.process.wait(timeout=STOP_TIMEOUT) == 0, server.stderr_text()
    for pid in server.lsp_pids:
        assert not is_running(pid)
    assert _port_is_free(port)
    assert "Traceback" not in server.stderr_text(), server.stderr_text()


def test_language_server_exits_when_its_editor_is_killed(
    bridge_server_factory: StartServer,
) -> None:
    """SIGKILL gives the headless editor no chance to clean up: the language server sees its
    stdin close and must exit by itself, releasing the port (no orphan holding it)."""
    server = bridge_server_factory()
    server.release()  # this test kills it itself
    port = _port(server.base_url)
    server.process.kill()  # SIGKILL; TerminateProcess on Windows
    server.process.wait(timeout=STOP_TIMEOUT)
    deadline = time.monotonic() + 3.0
    while any(is_running(pid) for pid in server.lsp_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in server.lsp_pids if is_running(pid)]
    assert not left, "the language server outlived its editor"
    assert _port_is_free(port)
