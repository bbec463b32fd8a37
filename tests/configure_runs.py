"""What the tests of every `configure` target share: a bridge whose aliases give it a client's
model names, a port where no bridge answers, and `maestro-bridge configure TARGET` run as a
process of its own (its exit code and stderr as a user sees them)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from conftest import BridgeServer, running_bridge_server


@contextmanager
def aliased_bridge(aliases: tuple[str, ...]) -> Iterator[BridgeServer]:
    """A real `serve` with one `--model-alias` per entry of `aliases` ("name=editor-model")."""
    args = [arg for alias in aliases for arg in ("--model-alias", alias)]
    with running_bridge_server(*args) as server:
        yield server


def free_port() -> int:
    """A port nothing listens on (just released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def run_configure(
    target: str, args: list[str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """`python -m bridge.cli configure TARGET ARGS...` to its end (60 s at most)."""
    return subprocess.run(
        [sys.executable, "-m", "bridge.cli", "configure", target, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
