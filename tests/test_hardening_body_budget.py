"""Issue 27, big bodies at once: `limits.maxConcurrentBodyBytes`, against real `serve`s.

Before, forty 30 MiB bodies at once took the language server to 4.4 GB and held `/health` for
seconds; a request after them got no answer within 10 s. Now each request reserves its
`Content-Length` before its body is read, and past the bound (64 MiB by default) it gets 429
with Retry-After in its dialect's envelope at once. What the figures are under that load
(peak memory, `/health` latency) is measured by `python -m bench.big_bodies`; here only the
behaviour is checked, with a memory bound generous enough for any machine.

Clients are raw sockets where the point is that the body was never sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from conftest import BridgeServer

MIB = 1024 * 1024
TIMEOUT = aiohttp.ClientTimeout(total=120)
WAIT = 60.0  # against hangs only, never a measure of speed
Raw = tuple[asyncio.StreamReader, asyncio.StreamWriter]


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def text_body(size: int) -> bytes:
    """A Responses body of about `size` bytes of plain text."""
    return json.dumps({"model": "sim-echo", "input": "lorem ipsum " * (size // 12)}).encode()


async def open_raw(server: BridgeServer) -> Raw:
    port = urlsplit(server.base_url).port
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), WAIT)


def post_head(path: str, length: int, extra: str = "") -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"{extra}Content-Length: {length}\r\n\r\n"
    ).encode()


async def read_head_and_body(reader: asyncio.StreamReader) -> tuple[bytes, dict[str, Any]]:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), WAIT)
    lengths = [line for line in head.lower().split(b"\r\n") if line.startswith(b"content-length:")]
    assert lengths, head
    body = await asyncio.wait_for(reader.readexactly(int(lengths[0][15:])), WAIT)
    return head, json.loads(body)


# --------------------------------------------------------------------------- the flood


async def _watch_health(
    http: aiohttp.ClientSession, url: str, stop: asyncio.Event, pid: int, seen: dict[str, int]
) -> None:
    while not stop.is_set():
        seen["rss"] = max(seen["rss"], rss_bytes(pid))
        async with http.get(url) as reply:  # the session's timeout guards against a hang
            assert reply.status == 200
            seen["health"] += 1
        await asyncio.sleep(0.05)


async def test_many_big_bodies_at_once_get_429_and_the_server_stays_responsive(
    bridge_server: BridgeServer,
) -> None:
    [lsp] = bridge_server.lsp_pids
    body = text_body(30 * MIB)
    url = f"{bridge_server.base_url}/responses/input_tokens"
    headers = {"Content-Type": "application/json"}

    async def big(http: aiohttp.ClientSession) -> tuple[int, str | None, dict[str, Any]]:
        async with http.post(url, data=body, headers=headers) as reply:
            return reply.status, reply.headers.get("Retry-After"), await reply.json()

    seen = {"rss": 0, "health": 0}
    stop = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT, connector=connector) as http,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT)) as other,
    ):
        watcher = asyncio.create_task(
            _watch_health(other, bridge_server.root_url + "/health", stop, lsp, seen)
        )
        try:
            replies = await asyncio.gather(*(big(http) for _ in range(12)))
        finally:
            stop.set()
            await watcher
        # Right after: a normal request is answered (before, it waited behind the backlog).
        async with other.post(
            f"{bridge_server.base_url}/responses", json={"model": "sim-echo", "input": "Hi."}
        ) as reply:
            assert reply.status == 200, await reply.text()
    statuses = sorted(status for status, _, _ in replies)
    # Two 30 MiB bodies fit in the default 64 MiB; the rest are refused, not queued in memory.
    assert set(statuses) <= {200, 429}, statuses
    refused = [(retry, answer) for status, retry, answer in replies if status == 429]
    assert len(refused) >= 6, statuses
    for retry, answer in refused:
        assert retry is not None and int(retry) >= 1
        assert answer["error"]["code"] == "too_many_concurrent_requests", answer
        assert "limits.maxConcurrentBodyBytes" in answer["error"]["message"]
    assert all(answer["input_tokens"] > 0 for status, _, answer in replies if status == 200)
    assert seen["health"] > 0
    # Generous (about 0.3 GB here): without the bound, twelve bodies took it past 1 GB.
    assert seen["rss"] < 800 * MIB, f"the language server peaked at {seen['rss'] // MIB} MiB"


# --------------------------------------------------------------------------- before reading

# Each dialect's 429 envelope: (path, what to read from the answer, what it must be).
REFUSED_IN_EACH_DIALECT: list[tuple[str, Callable[[dict[str, Any]], object], object]] = [
    ("/v1/responses/input_tokens", lambda b: b["error"]["code"], "too_many_concurrent_requests"),
    ("/v1/chat/completions", lambda b: b["error"]["code"], "too_many_concurrent_requests"),
    (
        "/v1/messages/count_tokens",
        lambda b: (b["type"], b["error"]["type"]),
        ("error", "rate_limit_error"),
    ),
    ("/v1beta/models/sim-echo:countTokens", lambda b: b["error"]["status"], "RESOURCE_EXHAUSTED"),
]


async def chunks(total: int, piece: int = 256 * 1024) -> AsyncIterator[bytes]:
    """A JSON body sent chunked (no Content-Length): it can only be counted as it grows."""
    yield b'{"model": "sim-echo", "input": "'
    for _ in range(total // piece):
        yield b"x" * piece
    yield b'"}'


async def test_declared_bodies_are_reserved_before_they_are_read(
    bridge_server: BridgeServer,
) -> None:
    # Two requests declare 31 MiB each and send almost nothing: 62 of the 64 MiB are held.
    stalled = [await open_raw(bridge_server) for _ in range(2)]
    refused: list[Raw] = []
    try:
        for _, writer in stalled:
            writer.write(post_head("/v1/responses/input_tokens", 31 * MIB) + b'{"model": ')
            await writer.drain()
        await asyncio.sleep(0.5)  # setup only: let the server take in the stalled headers
        # A 4 MiB request in any dialect is refused from its headers alone: its body is never
        # sent, and the answer comes anyway. Before, it was read (and would have waited).
        for path, read, expected in REFUSED_IN_EACH_DIALECT:
            reader, writer = await open_raw(bridge_server)
            refused.append((reader, writer))
            extra = "anthropic-version: 2023-06-01\r\n" if "/messages" in path else ""
            writer.write(post_head(path, 4 * MIB, extra))
            await writer.drain()
            head, body = await read_head_and_body(reader)
            assert head.startswith(b"HTTP/1.1 429 "), (path, head, body)
            assert b"\r\nretry-after: 1\r\n" in head.lower(), head
            assert read(body) == expected, (path, body)
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            # What is left (2 MiB) still takes small requests.
            small = {"model": "sim-echo", "input": "hi"}
            async with http.post(f"{bridge_server.base_url}/responses", json=small) as reply:
                assert reply.status == 200, await reply.text()
            # A chunked body is counted as it arrives, and refused when it passes the bound.
            async with http.post(
                f"{bridge_server.base_url}/responses/input_tokens",
                data=chunks(4 * MIB),
                headers={"Content-Type": "application/json"},
            ) as reply:
                assert reply.status == 429, await reply.text()
                assert reply.headers["Retry-After"] == "1"
            # The stalled clients go away: what they held is given back.
            for _, writer in stalled:
                writer.close()
            four_mib = text_body(4 * MIB)
            for _ in range(int(WAIT / 0.1)):
                async with http.post(
                    f"{bridge_server.base_url}/responses/input_tokens",
                    data=four_mib,
                    headers={"Content-Type": "application/json"},
                ) as reply:
                    if reply.status != 429:
                        break
                await asyncio.sleep(0.1)  # the server notices the closed sockets
            assert reply.status == 200, await reply.text()
    finally:
        for _, writer in stalled + refused:
            writer.close()


async def test_a_declared_length_past_the_body_limit_gets_413_before_reading(
    bridge_server: BridgeServer,
) -> None:
    reader, writer = await open_raw(bridge_server)
    try:
        writer.write(post_head("/v1/responses", 40 * MIB))
        await writer.drain()
        head, body = await read_head_and_body(reader)
        assert head.startswith(b"HTTP/1.1 413 "), head
        assert body["error"]["code"] == "request_too_large", body
    finally:
        writer.close()


# --------------------------------------------------------------------------- WebSocket frames


async def ws_outcome(ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> dict[str, Any]:
    """Send a create frame; its error event or its terminal event."""
    await ws.send_str(json.dumps(frame))
    while True:
        message = await ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        event: dict[str, Any] = json.loads(message.data)
        if event["type"] in ("error", "response.completed", "response.failed"):
            return event


async def test_websocket_frames_count_against_the_same_budget(
    bridge_server: BridgeServer,
) -> None:
    stalled = [await open_raw(bridge_server) for _ in range(2)]
    # A warm-up (`generate: false`, as Codex sends first): no model call, only the frame's size.
    big = {
        "type": "response.create",
        "model": "sim-echo",
        "generate": False,
        "input": "lorem ipsum " * (MIB // 3),
    }
    small = {"type": "response.create", "model": "sim-echo", "input": "hi"}
    url = bridge_server.root_url.replace("http://", "ws://", 1) + "/v1/responses"
    try:
        for _, writer in stalled:
            writer.write(post_head("/v1/responses/input_tokens", 31 * MIB) + b'{"model": ')
            await writer.drain()
        await asyncio.sleep(0.5)  # setup only: let the server take in the stalled headers
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.ws_connect(url, max_msg_size=0) as ws,
        ):
            # 4 MiB of frame does not fit beside the 62 MiB held: refused before it is decoded.
            refused = await ws_outcome(ws, big)
            assert refused["type"] == "error", refused
            assert refused["status"] == 429
            assert refused["error"]["code"] == "too_many_concurrent_requests"
            assert "limits.maxConcurrentBodyBytes" in refused["error"]["message"]
            assert (await ws_outcome(ws, small))["type"] == "response.completed"
            for _, writer in stalled:
                writer.close()
            for _ in range(int(WAIT / 0.1)):
                answered = await ws_outcome(ws, big)
                if answered.get("status") != 429:
                    break
                await asyncio.sleep(0.1)  # the server notices the closed sockets
            assert answered["type"] == "response.completed", answered
    finally:
        for _, writer in stalled:
            writer.close()
