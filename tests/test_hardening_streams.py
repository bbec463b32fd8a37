"""Issue 14, streams: clients that stop reading, and token counts, against a real server.

- A streaming client (SSE or WebSocket) that stops reading but keeps its socket open loses its
  model slot within `--write-timeout`: its connection is closed, the editor request cancelled,
  and others get their answers.
- While a client reads nothing of a very long answer, the language server's memory stays flat:
  flow control (`window` / `maestro/chatAck`) pauses the editor instead of queueing parts.
- `/v1/responses/input_tokens` takes a model slot (429 beyond the cap), and an editor that is
  slow to count gives 504 `editor_timeout`, not 503 `editor_unavailable`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from conftest import StartServer
from processes import paused

from headless_editor.editor import HeadlessEditor
from lsp import rpc

# Far more parts than any socket buffer holds: the server's writes block for good.
ENDLESS = {"model": "sim-bench", "input": "1000000", "stream": True}
BOUND = 30.0  # generous: every wait below ends within a few seconds on a quiet machine


def stalled_stream(base_url: str, body: dict[str, Any] = ENDLESS) -> socket.socket:
    """A streaming request from a client that never reads its answer (a tiny receive buffer)."""
    address = urlsplit(base_url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(BOUND)
    sock.connect((address.hostname or "127.0.0.1", address.port or 80))
    data = json.dumps(body).encode()
    head = (
        f"POST /v1/responses HTTP/1.1\r\nHost: {address.netloc}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    sock.sendall(head.encode() + data)
    return sock


@contextlib.contextmanager
def stalled_streams(base_url: str, count: int) -> Iterator[list[socket.socket]]:
    sockets = [stalled_stream(base_url) for _ in range(count)]
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Read what the server sent until it closed the connection (True), or BOUND passed."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        try:
            if not sock.recv(1 << 20):
                return True
        except ConnectionResetError:
            return True  # aborted with unsent data: a reset
        except TimeoutError:
            return False
    return False


async def status_once_free(session: aiohttp.ClientSession, url: str, body: Any) -> int:
    """POST until the answer is not a 429 (the slots are still held), within BOUND."""
    deadline = time.monotonic() + BOUND
    while True:
        async with session.post(url, json=body) as resp:
            await resp.read()
            if resp.status != 429 or time.monotonic() > deadline:
                return resp.status
        await asyncio.sleep(0.2)


def vm_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


# --------------------------------------------------------------------------- stuck writers


async def test_sse_clients_that_stop_reading_lose_their_slot(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--max-concurrent", "2", "--write-timeout", "1")
    answer = {"model": "sim-echo", "input": "hi"}
    with stalled_streams(server.base_url, 2) as sockets:
        async with aiohttp.ClientSession() as session:
            # Both slots are taken: two more requests wait for them, then get their answers.
            url = f"{server.base_url}/responses"
            statuses = await asyncio.gather(
                status_once_free(session, url, answer), status_once_free(session, url, answer)
            )
            assert list(statuses) == [200, 200]
        # Both slots were freed, so the server has closed both (reading now cannot revive them).
        assert all(closed_by_server(sock) for sock in sockets)
    server.assert_alive()


async def test_a_websocket_client_that_stops_reading_loses_its_slot(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--max-concurrent", "1", "--write-timeout", "1")
    async with aiohttp.ClientSession() as session:
        ws_url = server.base_url.replace("http://", "ws://") + "/responses"
        async with session.ws_connect(ws_url) as ws:
            create = {"type": "response.create", **ENDLESS}
            create.pop("stream")
            await ws.send_json(create)  # and never read: the client's buffers fill up
            status = await status_once_free(
                session, f"{server.base_url}/responses", {"model": "sim-echo", "input": "hi"}
            )
            assert status == 200
    server.assert_alive()


async def test_the_total_timeout_holds_for_a_stuck_writer(
    bridge_server_factory: StartServer,
) -> None:
    # The write timeout alone would hold the slot for a minute; the total timeout ends it.
    server = bridge_server_factory(
        "--max-concurrent", "1", "--write-timeout", "60", "--total-timeout", "2"
    )
    with stalled_streams(server.base_url, 1) as sockets:
        async with aiohttp.ClientSession() as session:
            status = await status_once_free(
                session, f"{server.base_url}/responses", {"model": "sim-echo", "input": "hi"}
            )
            assert status == 200
        assert closed_by_server(sockets[0])


async def test_the_language_server_memory_stays_flat_for_a_client_that_reads_nothing(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--write-timeout", "60")
    (lsp,) = server.lsp_pids
    warm_up = {"model": "sim-bench", "input": "1000"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{server.base_url}/responses", json=warm_up) as resp,
    ):
        assert resp.status == 200
    before = vm_rss_mib(lsp)
    with stalled_streams(server.base_url, 1):
        peak = before
        for _ in range(30):  # 6 s: unbounded queueing grew by ~60 MiB a second
            await asyncio.sleep(0.2)
            peak = max(peak, vm_rss_mib(lsp))
    print(f"language server RSS {before:.0f} MiB, peak {peak:.0f} MiB while a client stalled")
    assert peak - before < 40, (before, peak)


async def open_chats_become(editor: HeadlessEditor, count: int) -> int:
    """The language server's open chats (`maestro/stats`) once they are `count`, or at BOUND."""
    deadline = time.monotonic() + BOUND
    while True:
        stats = await editor.protocol.send_request_async(rpc.STATS, None)
        if stats["chats"] == count or time.monotonic() > deadline:
            return int(stats["chats"])
        await asyncio.sleep(0.1)


async def test_a_stuck_writer_cancels_the_editor_request() -> None:
    """The editor's side, through the language server's `maestro/stats`: no chat stays open."""
    editor = HeadlessEditor()
    url = await editor.start({"port": 0, "limits": {"writeTimeoutSeconds": 1}})
    try:
        with stalled_streams(url, 2) as sockets:
            opened = await open_chats_become(editor, 2)
            assert opened == 2  # both streams run: their editor requests are open
            # Read nothing until then: reading would let a stream go on.
            assert await open_chats_become(editor, 0) == 0
            assert all(closed_by_server(sock) for sock in sockets)
            assert not editor._senders  # the headless editor stopped its model stream too
    finally:
        await editor.stop()


# --------------------------------------------------------------------------- token counts


LONG_ANSWER = {"rules": [{"match": "hold", "reply": [
    {"type": "text", "text": "holding"}, {"type": "pause", "seconds": 60},
    {"type": "text", "text": "done"},
]}]}  # fmt: skip


async def test_token_counts_take_a_model_slot(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--max-concurrent", "1", script=LONG_ANSWER)
    count_url = f"{server.base_url}/responses/input_tokens"
    count = {"model": "sim-echo", "input": "hello there"}
    async with aiohttp.ClientSession() as session:
        holding = await session.post(
            f"{server.base_url}/responses",
            json={"model": "sim-echo", "input": "hold", "stream": True},
        )
        try:
            assert holding.status == 200
            await asyncio.wait_for(holding.content.readany(), BOUND)  # it runs: the slot is held
            async with session.post(count_url, json=count) as resp:
                assert resp.status == 429, await resp.text()
                assert resp.headers["Retry-After"]
                assert (await resp.json())["error"]["code"] == "too_many_concurrent_requests"
        finally:
            holding.close()
        assert await status_once_free(session, count_url, count) == 200


async def test_a_slow_count_is_a_timeout_not_an_absent_editor(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--idle-timeout", "1")
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=BOUND)) as session:
        async with session.get(f"{server.base_url}/models") as resp:
            assert resp.status == 200  # the model list is cached from now on
        with paused(server.process.pid):  # `serve` is the editor: it answers nothing
            async with session.post(
                f"{server.base_url}/responses/input_tokens", json={"input": "count me"}
            ) as resp:
                body = await resp.json()
            async with session.get(f"{server.root_url}/health") as health:
                assert health.status == 200  # the language server itself stayed responsive
        assert resp.status == 504, body
        assert body["error"]["code"] == "editor_timeout"
        async with session.post(
            f"{server.base_url}/responses/input_tokens", json={"input": "count me"}
        ) as resp:
            assert resp.status == 200
