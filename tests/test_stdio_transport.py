"""The language server's stdio transports (lsp/stdio_transport.py), Windows' threaded one
above all: run here on Linux by MAESTRO_STDIO_TRANSPORT=threads, under the real language
server that the real headless editor (in this process, and inside `serve`) starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import REPO_ROOT, StartServer
from test_faults import close_editor_read_end, finish_stream, open_stream, start_editor

from lsp import rpc
from lsp.stdio_transport import (
    PIPES,
    THREADS,
    TRANSPORT_ENV,
    ThreadedReader,
    ThreadedWriter,
    chosen_transport,
    open_stdio,
    reader_gone,
)

THREADED_LOG = "Editor pipes through threads"


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        with contextlib.suppress(OSError):  # closed by the test
            os.close(fd)


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


# --------------------------------------------------------------------------- the choice


def test_the_platform_chooses_and_the_switch_forces() -> None:
    assert chosen_transport({}, "win32")[0] == THREADS
    assert chosen_transport({}, "linux")[0] == PIPES
    assert chosen_transport({}, "darwin")[0] == PIPES
    assert chosen_transport({TRANSPORT_ENV: "auto"}, "win32")[0] == THREADS
    assert chosen_transport({TRANSPORT_ENV: "threads"}, "linux") == (
        THREADS,
        f"{TRANSPORT_ENV}=threads",
    )
    assert chosen_transport({TRANSPORT_ENV: "Pipes"}, "win32")[0] == PIPES
    assert chosen_transport({TRANSPORT_ENV: "bogus"}, "linux")[0] == PIPES


async def test_what_asyncio_refuses_goes_through_threads(tmp_path: Path) -> None:
    """Regular files are no pipes for asyncio: asked for pipes, each side falls back."""
    source = tmp_path / "in.bin"
    source.write_bytes(frame({"jsonrpc": "2.0", "method": "m", "params": 1}))
    with source.open("rb") as stdin, (tmp_path / "out.bin").open("wb") as stdout:
        stdio = await open_stdio(lambda: None, stdin, stdout, transport=PIPES)
        assert stdio.kinds == (THREADS, THREADS)
        got: list[Any] = []
        await rpc.read_messages(stdio.reader, None, {"m": got.append})
        assert got == [1]
        stdio.writer.write(b"answer")
        await stdio.flush()
    assert (tmp_path / "out.bin").read_bytes() == b"answer"


# --------------------------------------------------------------------------- the threads


async def test_threaded_reader_delivers_every_byte_in_order_then_the_end(
    pipe: tuple[int, int],
) -> None:
    read_end, write_end = pipe
    reader = ThreadedReader(read_end)
    messages = [
        {"jsonrpc": "2.0", "method": "m", "params": {"n": n, "pad": "y" * (n * 997)}}
        for n in range(200)
    ]
    data = b"".join(frame(message) for message in messages)  # about 20 MB: many chunks

    def write_all() -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view[: 1 << 15]) :]
        os.close(write_end)

    writing = asyncio.get_running_loop().run_in_executor(None, write_all)
    got: list[Any] = []
    await asyncio.wait_for(rpc.read_messages(reader, None, {"m": got.append}), 60)
    await writing
    assert [params["n"] for params in got] == list(range(200))
    assert got == [message["params"] for message in messages]
    assert await reader.read(10) == b""  # and stays at its end


async def test_threaded_reader_honours_the_size_asked(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    reader = ThreadedReader(read_end)
    os.write(write_end, b"abcdefgh")
    os.close(write_end)
    assert await reader.read(3) == b"abc"
    assert await reader.read(3) == b"def"
    assert await reader.read() == b"gh"
    assert await reader.read() == b""


async def test_threaded_writer_writes_in_order_and_flushes(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    writer = ThreadedWriter(write_end, lambda: None)
    chunks = [b"%06d;" % n for n in range(20_000)]
    collected = bytearray()

    def drain() -> None:
        while chunk := os.read(read_end, 1 << 16):
            collected.extend(chunk)

    draining = asyncio.get_running_loop().run_in_executor(None, drain)
    for chunk in chunks:
        writer.write(chunk)
    await asyncio.to_thread(writer.flush, 10.0)
    os.close(write_end)
    await asyncio.wait_for(draining, 10)
    assert bytes(collected) == b"".join(chunks)
    writer.write(b"after close")  # dropped, never raises


async def test_threaded_writer_sees_the_reader_go_without_writing(
    pipe: tuple[int, int],
) -> None:
    """What asyncio's pipe transport tells at once (the editor stopped reading), the idle
    writer thread finds out by itself: open streams must fail, not wait for timeouts."""
    read_end, write_end = pipe
    lost = asyncio.Event()
    writer = ThreadedWriter(write_end, lost.set)
    writer.write(b"hello")
    assert os.read(read_end, 5) == b"hello"
    assert not reader_gone(write_end)
    os.close(read_end)
    assert reader_gone(write_end)
    await asyncio.wait_for(lost.wait(), 5)
    writer.write(b"nobody reads this")  # dropped, never raises


async def test_threaded_writer_reports_a_broken_pipe_on_write(pipe: tuple[int, int]) -> None:
    read_end, write_end = pipe
    lost = asyncio.Event()
    os.close(read_end)
    writer = ThreadedWriter(write_end, lost.set)
    writer.write(b"x" * 100_000)
    await asyncio.wait_for(lost.wait(), 5)


# --------------------------------------------------------------------------- the real server


def test_language_server_answers_from_a_file_on_stdin(tmp_path: Path) -> None:
    """stdin and stdout redirected to files: asyncio takes neither, the server still answers
    `initialize`, then exits cleanly at the file's end (its editor is gone). Before the
    threaded transport, it died at start-up."""
    options = {"protocolVersion": rpc.PROTOCOL_VERSION, "port": 0}
    initialize = {"capabilities": {}, "initializationOptions": options}
    requests = tmp_path / "requests.bin"
    requests.write_bytes(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize})
    )
    answers = tmp_path / "answers.bin"
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        result = subprocess.run(
            [sys.executable, "-m", "bridge.cli", "lsp"],
            cwd=REPO_ROOT,
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env={**os.environ, TRANSPORT_ENV: ""},
        )
    assert result.returncode == 0, result.stderr
    header, _, body = answers.read_bytes().partition(b"\r\n\r\n")
    assert int(header.split(b":")[1]) == len(body)
    reply = json.loads(body)
    assert reply["id"] == 1
    assert reply["result"]["capabilities"]["experimental"]["maestroBridge"] == {
        "protocolVersion": rpc.PROTOCOL_VERSION
    }
    assert THREADED_LOG in result.stderr


async def test_headless_editor_through_threaded_stdio(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Windows path end to end: a streamed answer, then the editor stops reading (every
    stream fails at once, new requests get 503), then closes stdin (the server exits)."""
    monkeypatch.setenv(TRANSPORT_ENV, THREADS)
    headless, url = await start_editor()
    assert headless.process is not None and headless.process.stdin is not None
    try:
        async with aiohttp.ClientSession() as session:
            body = {"model": "sim-echo", "input": "through threads"}
            async with session.post(f"{url}/responses", json=body) as response:
                assert response.status == 200
                answer = await response.json()
            assert answer["output"][-1]["content"][0]["text"] == "You said: through threads"
            resp, seen = await open_stream(session, url)
            close_editor_read_end(headless)
            events = await finish_stream(resp, seen)
            assert events[-1]["type"] == "response.failed"
            assert events[-1]["response"]["error"]["code"] == "editor_unavailable"
            async with session.post(f"{url}/responses", json=body) as response:
                assert response.status == 503
            closed = time.monotonic()
            headless.process.stdin.close()
            await asyncio.wait_for(headless.process.wait(), 10)
            assert time.monotonic() - closed < 2.0
    finally:
        await headless.stop()


def test_serve_through_threaded_stdio(bridge_server_factory: StartServer) -> None:
    """`serve` (its headless editor and language server) with Windows' transport: streamed
    and whole answers, then the usual clean stop (exit 0, no language server left)."""
    server = bridge_server_factory(env={TRANSPORT_ENV: THREADS})
    body = {"model": "sim-echo", "input": "threads " * 20_000, "stream": True}
    assert "response.completed" in post_text(f"{server.base_url}/responses", body)
    whole = json.loads(post_text(f"{server.base_url}/responses", {**body, "stream": False}))
    assert whole["status"] == "completed"
    assert whole["output"][-1]["content"][0]["text"].startswith("You said: threads threads")
    assert THREADED_LOG in server.stderr_text()


def post_text(url: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return str(response.read().decode())
