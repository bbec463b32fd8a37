"""Issue 14, connection rows, against real `maestro-bridge serve` processes with small bounds.

- A body that stalls holds no model slot and gets 408, and its connection is closed.
- Idle connections and half-sent headers are closed after their bounds.
- Beyond `--max-connections`, idle connections (HTTP first, then WebSockets with no response
  running) give way to new ones: a real client still gets its answer, a running one is kept.
- Out of file descriptors, `accept()` failures are logged once per burst, not per try.

Clients here are raw sockets where the attack needs bytes no HTTP client sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from conftest import BridgeServer, StartServer, running_bridge_server

from bridge.http.connection_limits import ACCEPT_FAILED, BurstLog, limit_accept_error_logs
from headless_editor.editor import HeadlessEditor

TIMEOUT = aiohttp.ClientTimeout(total=30)
WAIT = 30.0  # generous: against hangs only, never a measure of speed
Raw = tuple[asyncio.StreamReader, asyncio.StreamWriter]

SLOW_SCRIPT = {
    "rules": [
        {
            "match": "slowly",
            "reply": [
                {"type": "text", "text": "one"},
                {"type": "pause", "seconds": 3},
                {"type": "text", "text": "two"},
            ],
        }
    ]
}


def port_of(server: BridgeServer) -> int:
    port = urlsplit(server.base_url).port
    assert port is not None
    return port


def ws_url(server: BridgeServer) -> str:
    return server.root_url.replace("http://", "ws://", 1) + "/v1/responses"


async def open_raw(server: BridgeServer) -> Raw:
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port_of(server)), WAIT)


def close_raw(connections: list[Raw]) -> None:
    for _, writer in connections:
        writer.close()


async def until_closed(reader: asyncio.StreamReader, within: float = WAIT) -> bytes:
    """All the server sends until it closes the connection (fails if it stays open)."""
    try:
        return await asyncio.wait_for(reader.read(), within)
    except ConnectionResetError:
        return b""


def error_of(raw: bytes) -> dict[str, Any]:
    """The error envelope of a raw HTTP response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower(), raw
    error: dict[str, Any] = json.loads(body)["error"]
    return error


async def read_response(reader: asyncio.StreamReader) -> bytes:
    """One whole response with a Content-Length, from a connection that stays open."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
    lengths = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
    assert lengths, head
    return head + await asyncio.wait_for(reader.readexactly(int(lengths[0][15:])), WAIT)


def stalled_post(path: str) -> bytes:
    """Headers promising 500 body bytes, and the first few of them."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        'Content-Length: 500\r\n\r\n{"model": '
    ).encode()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


async def answer(http: aiohttp.ClientSession, server: BridgeServer, text: str = "hi") -> int:
    """A real client's request, on a new connection; its status."""
    async with http.post(
        f"{server.base_url}/responses",
        json={"model": "sim-echo", "input": text},
        headers={"Connection": "close"},
    ) as reply:
        await reply.read()
        return reply.status


# --------------------------------------------------------------------------- slow bodies


async def test_stalled_bodies_hold_no_model_slot_and_get_408(
    bridge_server_factory: StartServer, http: aiohttp.ClientSession
) -> None:
    server = bridge_server_factory("--max-concurrent", "2", "--body-timeout", "2")
    paths = ["/v1/responses", "/v1/responses", "/v1/responses/compact"]
    paths.append("/v1/responses/input_tokens")
    stalled = [await open_raw(server) for _ in paths]
    for (_, writer), path in zip(stalled, paths, strict=True):
        writer.write(stalled_post(path))
        await writer.drain()
    await asyncio.sleep(0.5)  # setup only: let the server take in the stalled headers
    try:
        # Before: the stalled requests held both slots, and this got 429.
        assert await answer(http, server) == 200
        for reader, _ in stalled:
            raw = await until_closed(reader)
            assert raw.startswith(b"HTTP/1.1 408 "), raw
            error = error_of(raw)
            assert error["code"] == "request_timeout"
            assert "limits.bodyTimeoutSeconds" in error["message"]
        assert await answer(http, server) == 200
    finally:
        close_raw(stalled)


async def test_bodies_in_memory_at_once_are_bounded_by_bytes_declared() -> None:
    """Bodies are read before the slot, so their bytes are bounded across requests:
    maxConcurrentBodyBytes = 8192 here. Stalled bodies hold what they declared (reserved
    before their bodies are read); a small request still fits in what is left."""
    editor = HeadlessEditor()
    limits = {"maxBodyBytes": 4096, "maxConcurrentRequests": 2, "maxConcurrentBodyBytes": 8192}
    url = await editor.start({"port": 0, "limits": limits})
    port = urlsplit(url).port
    body = json.dumps({"model": "sim-echo", "input": "x" * 3960}).encode()
    head = (
        "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    stalled = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]
    try:
        for _, writer in stalled:
            writer.write(head + body[:3500])
            await writer.drain()
        await asyncio.sleep(0.5)  # setup only: let the server take in the first 7000 bytes
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            large = {"model": "sim-echo", "input": "y" * 1500}
            async with http.post(f"{url}/responses", json=large) as reply:
                assert reply.status == 429, await reply.text()
                error = (await reply.json())["error"]
                assert "limits.maxConcurrentBodyBytes" in error["message"], error
                assert reply.headers["Retry-After"]
            # Before: the stalled requests held both slots, and this got 429 too.
            small = {"model": "sim-echo", "input": "hi"}
            async with http.post(f"{url}/responses", json=small) as reply:
                assert reply.status == 200, await reply.text()
            for reader, writer in stalled:
                writer.write(body[3500:])
                assert (await read_response(reader)).startswith(b"HTTP/1.1 200 ")
            async with http.post(f"{url}/responses", json=large) as reply:
                assert reply.status == 200, await reply.text()  # the budget was given back
    finally:
        close_raw(stalled)
        await editor.stop()


# --------------------------------------------------------------------------- idle, half-sent


async def drip(writer: asyncio.StreamWriter) -> None:
    """Slowloris: one more header byte now and then, never the end of the headers."""
    with contextlib.suppress(OSError):
        while True:
            await asyncio.sleep(0.2)
            writer.write(b"a")
            await writer.drain()


async def test_idle_and_half_sent_connections_are_closed(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--header-timeout", "1", "--keep-alive-timeout", "3")
    idle, half, used = [await open_raw(server) for _ in range(3)]
    half[1].write(b"POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    dripping = asyncio.create_task(drip(half[1]))
    used[1].write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert (await read_response(used[0])).startswith(b"HTTP/1.1 200 ")
    try:
        # Headers still coming in after the header bound: 408 (not an idle close).
        raw = await until_closed(half[0])
        assert raw.startswith(b"HTTP/1.1 408 "), raw
        assert "limits.headerTimeoutSeconds" in error_of(raw)["message"]
        # Before: aiohttp's keep-alive timeout of 3630 s kept these open.
        assert await until_closed(idle[0]) == b""
        assert await until_closed(used[0]) == b""
    finally:
        dripping.cancel()
        close_raw([idle, half, used])


# --------------------------------------------------------------------------- the cap


async def count_done(tasks: list[asyncio.Future[Any]], wanted: int, seconds: float) -> int:
    """Waits until `wanted` of the tasks are done (or `seconds` passed); how many are."""
    pending = set(tasks)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while len(tasks) - len(pending) < wanted and pending and loop.time() < deadline:
        _, pending = await asyncio.wait(
            pending, timeout=deadline - loop.time(), return_when=asyncio.FIRST_COMPLETED
        )
    for task in pending:
        task.cancel()
    return len(tasks) - len(pending)


async def closed_count(readers: list[asyncio.StreamReader], wanted: int) -> int:
    """How many of these connections the server closed (waiting for up to `wanted`)."""
    return await count_done([asyncio.ensure_future(r.read()) for r in readers], wanted, WAIT)


async def websockets_closed(
    sockets: list[aiohttp.ClientWebSocketResponse], wanted: int
) -> list[int]:
    """The indexes of the sockets the server closed (waiting for up to `wanted`)."""
    tasks = [asyncio.ensure_future(ws.receive()) for ws in sockets]
    await count_done(list(tasks), wanted, WAIT)
    ends = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)
    return [
        index
        for index, task in enumerate(tasks)
        if task.done() and not task.cancelled() and task.result().type in ends
    ]


def completed_text(sse: str) -> str:
    """The output text of the `response.completed` event of an SSE body."""
    for block in sse.split("\n\n"):
        if block.startswith("event: response.completed\n"):
            response = json.loads(block.split("data: ", 1)[1])["response"]
            return "".join(
                part["text"]
                for item in response["output"]
                for part in item.get("content", [])
                if part.get("type") == "output_text"
            )
    raise AssertionError(f"no response.completed event in {sse[-2000:]}")


async def test_a_flood_beyond_the_cap_lets_real_clients_through(
    bridge_server_factory: StartServer, http: aiohttp.ClientSession
) -> None:
    cap = 30
    server = bridge_server_factory("--max-connections", str(cap), script=SLOW_SCRIPT)
    # A streaming response runs all along: busy connections are never closed for others.
    stream = await http.post(
        f"{server.base_url}/responses",
        json={"model": "sim-echo", "input": "answer slowly", "stream": True},
    )
    first = await asyncio.wait_for(stream.content.readline(), WAIT)
    assert first.startswith(b"event: response.created"), first
    idle = [await open_raw(server) for _ in range(20)]
    slowloris = [await open_raw(server) for _ in range(20)]
    for _, writer in slowloris:
        writer.write(b"POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await writer.drain()
    sockets = [await http.ws_connect(ws_url(server)) for _ in range(10)]
    try:
        # Before: every connection was kept, whatever the number.
        assert await answer(http, server) == 200
        opened = 1 + len(idle) + len(slowloris) + len(sockets) + 1
        # Each connection beyond the cap closed one: all of them idle HTTP connections (the
        # idle WebSockets come after those), none the running stream.
        readers = [reader for reader, _ in idle + slowloris]
        assert await closed_count(readers, opened - cap) == opened - cap
        body = (await asyncio.wait_for(stream.read(), WAIT)).decode()
        assert completed_text(body) == "onetwo", body[-2000:]
        assert "Traceback" not in server.stderr_text()
    finally:
        stream.close()
        close_raw(idle + slowloris)
        for ws in sockets:
            await ws.close()


async def test_idle_websockets_give_way_but_not_one_with_a_response_running(
    bridge_server_factory: StartServer, http: aiohttp.ClientSession
) -> None:
    cap = 10
    server = bridge_server_factory("--max-connections", str(cap), script=SLOW_SCRIPT)
    busy = await http.ws_connect(ws_url(server))
    await busy.send_str(
        json.dumps({"type": "response.create", "model": "sim-echo", "input": "answer slowly"})
    )
    created = json.loads((await busy.receive(timeout=WAIT)).data)
    assert created["type"] == "response.created", created
    idle = [await http.ws_connect(ws_url(server)) for _ in range(cap + 5)]
    try:
        # Before: all were kept, whatever the number.
        assert await answer(http, server) == 200
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] != "response.completed":
            message = await busy.receive(timeout=WAIT)
            assert message.type == aiohttp.WSMsgType.TEXT, message
            events.append(json.loads(message.data))
        # The oldest idle ones were closed for the newer ones and the real request.
        evicted = 1 + len(idle) + 1 - cap
        assert await websockets_closed(idle, evicted) == list(range(evicted))  # oldest first
        assert "Traceback" not in server.stderr_text()
    finally:
        await busy.close()
        for ws in idle:
            await ws.close()


async def test_when_every_connection_is_busy_a_new_one_gets_503(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--max-connections", "2", script=SLOW_SCRIPT)
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as first,
        aiohttp.ClientSession(timeout=TIMEOUT) as second,
    ):
        streams = [
            await session.post(
                f"{server.base_url}/responses",
                json={"model": "sim-echo", "input": "answer slowly", "stream": True},
            )
            for session in (first, second)
        ]
        for stream in streams:
            assert (await stream.content.readline()).startswith(b"event: response.created")
        reader, writer = await open_raw(server)
        try:
            # Before: accepted like any other, whatever the number.
            raw = await until_closed(reader)
            assert raw.startswith(b"HTTP/1.1 503 "), raw
            assert b"retry-after: 1" in raw.lower(), raw
            assert error_of(raw)["code"] == "too_many_connections"
        finally:
            writer.close()
        for stream in streams:
            assert completed_text((await stream.read()).decode()) == "onetwo"
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        assert await answer(http, server) == 200


# --------------------------------------------------------------------------- accept errors

LOW_FD_LIMIT = 256


def serve_with_fd_limit(soft: int, hard: int) -> tuple[str, ...]:
    """`serve`, started with this RLIMIT_NOFILE (its language server inherits it)."""
    return (
        sys.executable,
        "-c",
        "import os, resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))\n"
        "os.execv(sys.executable, [sys.executable, '-m', 'bridge.cli', *sys.argv[1:]])",
        "serve",
    )


def open_files_limit(pid: int) -> str:
    limits = Path(f"/proc/{pid}/limits").read_text()
    return next(line for line in limits.splitlines() if line.startswith("Max open files"))


def test_the_descriptor_limit_is_raised_for_the_cap() -> None:
    with running_bridge_server(command=serve_with_fd_limit(256, 4096)) as server:
        # 1024 connections (the default cap) and the reserve, within the hard limit.
        assert open_files_limit(server.lsp_pids[0]).split()[3:5] == ["1216", "4096"]
        assert "At most" not in server.stderr_text()  # the cap was not lowered


async def test_out_of_descriptors_the_server_stays_reachable_and_logs_once(
    http: aiohttp.ClientSession,
) -> None:
    with running_bridge_server(command=serve_with_fd_limit(LOW_FD_LIMIT, LOW_FD_LIMIT)) as server:
        held: list[Raw] = []

        async def connect() -> None:
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                held.append(
                    await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port_of(server)), 5)
                )

        try:
            # More connections than the process has descriptors, all at once.
            await asyncio.gather(*(connect() for _ in range(2 * LOW_FD_LIMIT)))
            async with http.get(f"{server.root_url}/health") as reply:
                assert reply.status == 200  # before: unreachable while they stayed
            assert await answer(http, server) == 200
        finally:
            close_raw(held)
        log = server.stderr_text()
        assert "At most 128 open connections" in log  # 256 descriptors, half kept in reserve
        # Before: 162,667 lines (12 MB) in 6 s, one traceback per accept() try.
        assert log.count("Cannot accept connections") <= 2, log[-3000:]
        assert log.count("connections open (limits.maxConnections)") == 1, log[-3000:]
        assert len(log.splitlines()) < 50, log[-3000:]


def test_accept_failures_are_logged_once_per_burst(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    try:
        limit_accept_error_logs(loop)
        limit_accept_error_logs(loop)  # a second runner does not wrap it again
        with caplog.at_level(logging.WARNING):
            for _ in range(10_000):
                error = OSError(24, "Too many open files")
                loop.call_exception_handler({"message": ACCEPT_FAILED, "exception": error})
            loop.call_exception_handler({"message": "something else"})
    finally:
        loop.close()
    accept = [r for r in caplog.records if "Cannot accept connections" in r.getMessage()]
    assert len(accept) == 1
    assert any("something else" in r.getMessage() for r in caplog.records)  # others as before


def test_a_burst_log_says_how_many_it_left_out(caplog: pytest.LogCaptureFixture) -> None:
    burst = BurstLog(logging.getLogger("test.burst"), window=0.0)
    quiet = BurstLog(logging.getLogger("test.burst"), window=3600.0)
    with caplog.at_level(logging.WARNING):
        quiet.warning("quiet")
        for _ in range(5):
            quiet.warning("quiet")
        burst.warning("loud")
        burst.warning("loud")
    assert [r.getMessage() for r in caplog.records] == ["quiet", "loud", "loud"]
