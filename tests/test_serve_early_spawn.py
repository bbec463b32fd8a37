"""`maestro-bridge serve` spawns its language server before it parses its flags (bridge/cli.py
`_spawn_for_serve`), and adopts it into asyncio later (headless_editor/adopted_process.py).
Real processes throughout."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
import uuid

import pytest
from conftest import running_bridge_server
from processes import HAS_PROC, SESSION_ENV, environ, is_running, kill_tree, process_table, run

from bridge import cli
from headless_editor.adopted_process import adopt
from headless_editor.spawn import spawns_before_asyncio

pytestmark = pytest.mark.skipif(
    not spawns_before_asyncio(), reason="serve spawns through asyncio on this platform"
)

ECHO_UNTIL_BYE = """\
import sys
for line in sys.stdin:
    if line.strip() == "bye":
        sys.exit(3)
    sys.stdout.write(line.upper())
    sys.stdout.flush()
"""


def _child(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )


def test_the_platforms_that_spawn_before_asyncio() -> None:
    # Windows' event loop reads only overlapped pipes, which Popen does not make: there the
    # server is spawned through asyncio (the path HeadlessEditor.start takes in the tests).
    assert not spawns_before_asyncio("win32")
    assert spawns_before_asyncio("linux") and spawns_before_asyncio("darwin")


@pytest.mark.parametrize(
    "argv", [["serve", "--help"], ["serve", "-h"], ["lsp"], ["usage"], [], ["configure"]]
)
def test_only_serve_spawns_early_and_not_for_help(argv: list[str]) -> None:
    assert cli._spawn_for_serve(argv) is None


def test_serve_spawns_its_language_server_first() -> None:
    spawned = cli._spawn_for_serve(["serve", "--port", "0"])
    assert spawned is not None
    try:
        assert spawned.poll() is None  # importing, waiting for its editor's `initialize`
    finally:
        spawned.kill()
        spawned.wait()


def _marked(session: str) -> list[int]:
    """Running processes started with `session` as their mark (their environment, /proc):
    the session's own servers, started by other tests, are not among them."""
    return [
        pid
        for pid, _ in process_table()
        if is_running(pid) and environ(pid).get(SESSION_ENV) == session
    ]


@pytest.mark.skipif(not HAS_PROC, reason="reads each process's environment from /proc")
@pytest.mark.parametrize("flags", [["--port", "many"], ["--no-such-flag"], ["--help"]])
def test_serve_stopped_by_its_flags_leaves_no_language_server(flags: list[str]) -> None:
    session = uuid.uuid4().hex
    env = {**os.environ, SESSION_ENV: session}
    done = run([sys.executable, "-m", "bridge.cli", "serve", *flags], timeout=60, env=env)
    assert done.returncode == (0 if flags == ["--help"] else 2), done.stderr
    # Killed and reaped before serve exited: a server left to notice its closed stdin would
    # still be importing now (about a second).
    left = _marked(session)
    for pid in left:  # a failing run still stops what it started
        kill_tree(pid)
    assert left == []


async def test_an_adopted_process_streams_and_exits() -> None:
    process = await adopt(_child(ECHO_UNTIL_BYE))
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"hello\n")
    await process.stdin.drain()
    assert await asyncio.wait_for(process.stdout.readline(), 30) == b"HELLO\n"
    assert process.returncode is None
    process.stdin.write(b"bye\n")
    assert await asyncio.wait_for(process.wait(), 30) == 3
    assert process.returncode == 3
    assert await process.stdout.read() == b""  # its pipe closed with it
    assert await process.wait() == 3  # as often as asked


async def test_an_adopted_process_is_killed_and_a_cancelled_wait_leaves_the_others() -> None:
    process = await adopt(_child("import time; time.sleep(60)"))
    first = asyncio.create_task(process.wait())
    second = asyncio.create_task(process.wait())
    await asyncio.sleep(0)
    first.cancel()
    process.kill()
    code = await asyncio.wait_for(second, 30)
    assert code < 0 and process.returncode == code  # ended by a signal: the kill
    assert first.cancelled()
    process.kill()  # once it has exited: nothing happens


# `serve` as it runs on Windows: no early spawn, the language server spawned through asyncio
# once the flags are parsed (bridge/serve_run.py), forced here on this platform.
AS_ON_WINDOWS = """\
import sys
from headless_editor import spawn
spawn.spawns_before_asyncio = lambda platform=sys.platform: False


def refused() -> None:
    raise AssertionError("spawned before asyncio where asyncio cannot adopt the process")


spawn.spawn_before_asyncio = refused
from bridge.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_serve_without_the_early_spawn_answers_and_stops_cleanly() -> None:
    command = [sys.executable, "-c", AS_ON_WINDOWS, "serve"]
    with running_bridge_server(command=command) as server:
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=30) as reply:
            models = json.loads(reply.read())["data"]
        assert "sim-echo" in {model["id"] for model in models}
