"""Faults, against the real language server process: the editor crashes or stops listening,
the editor never answers, the HTTP client goes away (once, and a thousand times), the port
is taken. The editor is the headless editor in this test process, with a model written for
these tests (it stalls on request), so the test can break the editor's side on purpose."""

from __future__ import annotations

import asyncio
import json
import socket
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import REPO_ROOT, StartServer, is_running
from processes import run
from spec_validation import parse_sse, validate_stream

from bridge.core.parts import EditorError, ResponsePart, TextPart
from headless_editor.chat_types import ChatRequest, ModelInfo
from headless_editor.editor import HeadlessEditor
from headless_editor.script import Script
from headless_editor.simulated_model import SimulatedModel
from lsp import rpc
from lsp.editor_backend import EditorBackend

EXIT_BOUND = 1.0  # the bound: the language server is gone within a second
CANCEL_BOUND = 0.1  # the bound for `$/cancelRequest` to reach the editor (median)


class StallingModel(SimulatedModel):
    """Test-only models: `stall` sends one part then goes quiet; `silent` never sends
    anything; `drip` sends a part every 50 ms forever. Cancellations are counted."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled = 0
        self.cancel_seen = asyncio.Event()

    def models(self) -> list[ModelInfo]:
        extra = [ModelInfo(id=name, name=name) for name in ("stall", "silent", "drip")]
        return [*super().models(), *extra]

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        if request.model not in ("stall", "silent", "drip"):
            async for part in super().respond(request, rules):
                yield part
            return
        try:
            if request.model == "stall":
                yield TextPart(value="first ")
            while True:
                await asyncio.sleep(0.05 if request.model == "drip" else 3600)
                yield TextPart(value="drop ")
        except asyncio.CancelledError:
            self.cancelled += 1
            self.cancel_seen.set()
            raise


async def start_editor(limits: dict[str, Any] | None = None) -> tuple[HeadlessEditor, str]:
    editor = HeadlessEditor(model=StallingModel())
    url = await editor.start({"port": 0, "limits": limits or {}})
    return editor, url


@pytest.fixture
async def editor() -> AsyncIterator[tuple[HeadlessEditor, StallingModel, str]]:
    headless, url = await start_editor()
    assert isinstance(headless.model, StallingModel)
    yield headless, headless.model, url
    await headless.stop()


async def open_stream(
    session: aiohttp.ClientSession, url: str, model: str = "stall"
) -> tuple[aiohttp.ClientResponse, bytes]:
    """Start a streaming request and read until the model's first delta arrived."""
    body = {"model": model, "input": "hi", "stream": True}
    resp = await session.post(f"{url}/responses", json=body)
    assert resp.status == 200, await resp.text()
    seen = b""
    while b"response.output_text.delta" not in seen:
        chunk = await asyncio.wait_for(resp.content.readany(), 10)
        assert chunk, f"stream ended early: {seen!r}"
        seen += chunk
    return resp, seen


async def finish_stream(resp: aiohttp.ClientResponse, seen: bytes) -> list[dict[str, Any]]:
    rest = await asyncio.wait_for(resp.read(), 10)
    return parse_sse((seen + rest).decode())


def close_editor_read_end(editor: HeadlessEditor) -> None:
    """The editor stops reading the language server's stdout (its reader closed the pipe)."""
    assert editor.process is not None
    # A stopped editor answers nothing more: without this, the headless editor would reply
    # "cancelled" to its open chats on the still-open other pipe once its reader ends.
    editor._fail_pending = lambda: None  # type: ignore[method-assign]
    transport: Any = editor.process._transport  # type: ignore[attr-defined]
    transport.get_pipe_transport(1).close()


def crash_editor(editor: HeadlessEditor) -> None:
    """What the language server sees when the editor process dies: both pipes close."""
    assert editor.process is not None and editor.process.stdin is not None
    close_editor_read_end(editor)
    editor.process.stdin.close()


async def stats(editor: HeadlessEditor) -> dict[str, int]:
    result = await asyncio.wait_for(editor.protocol.send_request_async(rpc.STATS, None), 10)
    return dict(result)


# --------------------------------------------------------------------------- editor lost


async def test_editor_crash_fails_open_streams_and_the_server_exits() -> None:
    headless, url = await start_editor()
    assert headless.process is not None
    try:
        async with aiohttp.ClientSession() as session:
            streams = [await open_stream(session, url) for _ in range(3)]
            crashed = time.monotonic()
            crash_editor(headless)
            for resp, seen in streams:
                events = await finish_stream(resp, seen)
                validate_stream(events)
                assert events[-1]["type"] == "response.failed"
                assert events[-1]["response"]["error"]["code"] == "editor_unavailable"
            await asyncio.wait_for(headless.process.wait(), 10)
            exited = time.monotonic() - crashed
        print(f"language server exit after the editor crashed: {exited * 1000:.0f} ms")
        assert exited < EXIT_BOUND, f"the language server took {exited:.2f} s to exit"
    finally:
        await headless.stop()


async def test_editor_that_stops_reading_gets_503s_and_exit_on_stdin_close() -> None:
    headless, url = await start_editor()
    assert headless.process is not None and headless.process.stdin is not None
    try:
        async with aiohttp.ClientSession() as session:
            resp, seen = await open_stream(session, url)
            close_editor_read_end(headless)
            events = await finish_stream(resp, seen)
            assert events[-1]["type"] == "response.failed"
            assert events[-1]["response"]["error"]["code"] == "editor_unavailable"
            # Later requests: 503 up front (streaming or not), never a hang.
            for body in (
                {"model": "sim-echo", "input": "x"},
                {"model": "sim-echo", "input": "x", "stream": True},
            ):
                async with session.post(f"{url}/responses", json=body) as r:
                    assert r.status == 503
                    error = (await r.json())["error"]
                    assert error["code"] == "editor_unavailable"
                    assert error["type"] == "server_error"
            closed = time.monotonic()
            headless.process.stdin.close()
            await asyncio.wait_for(headless.process.wait(), 10)
            exited = time.monotonic() - closed
        print(f"language server exit after its stdin closed: {exited * 1000:.0f} ms")
        assert exited < EXIT_BOUND, f"the language server took {exited:.2f} s to exit"
    finally:
        await headless.stop()


def test_killed_serve_leaves_no_language_server_and_frees_the_port(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory()
    server.release()  # this test ends it itself, brutally
    (lsp_pid,) = server.lsp_pids
    port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    killed = time.monotonic()
    server.process.kill()  # SIGKILL; TerminateProcess on Windows
    server.process.wait()
    while is_running(lsp_pid) and time.monotonic() - killed < 10:
        time.sleep(0.01)
    gone_after = time.monotonic() - killed
    print(f"language server gone after `serve` was killed: {gone_after * 1000:.0f} ms")
    still = is_running(lsp_pid)
    assert not still and gone_after < EXIT_BOUND, f"lsp still there after {gone_after:.2f} s"
    with socket.socket() as sock:  # nobody holds the port any more
        sock.bind(("127.0.0.1", port))


def test_port_taken_is_a_clear_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = run(
            [sys.executable, "-m", "bridge.cli", "serve", "--port", str(port)],
            cwd=REPO_ROOT,
            timeout=60,
        )
    assert result.returncode == 1
    assert f"Cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "address already in use" in result.stderr.lower()
    assert "Listening on" not in result.stdout


# --------------------------------------------------------------------------- editor silent


@pytest.mark.parametrize("model", ["silent", "stall"])
async def test_editor_that_never_answers_times_out(model: str) -> None:
    headless, url = await start_editor({"idleTimeoutSeconds": 0.5})
    assert isinstance(headless.model, StallingModel)
    try:
        async with aiohttp.ClientSession() as session:
            body = {"model": model, "input": "hi"}
            async with session.post(f"{url}/responses", json=body) as r:
                assert r.status == 504
                error = (await r.json())["error"]
            assert error["code"] == "editor_timeout" and "0.5 s" in error["message"]
            async with session.post(f"{url}/responses", json={**body, "stream": True}) as r:
                text = await asyncio.wait_for(r.text(), 10)
                status = r.status
            if model == "silent":
                # Nothing sent yet (no part, no keepalive within 0.5 s): the HTTP error.
                assert status == 504
                assert json.loads(text)["error"]["code"] == "editor_timeout"
            else:
                assert status == 200
                events = parse_sse(text)
                validate_stream(events)
                assert events[-1]["type"] == "response.failed"
                assert events[-1]["response"]["error"]["code"] == "editor_timeout"
        # The editor was told to stop each time.
        await asyncio.wait_for(headless.model.cancel_seen.wait(), 5)
        for _ in range(50):
            if headless.model.cancelled == 2:
                break
            await asyncio.sleep(0.05)
        assert headless.model.cancelled == 2
    finally:
        await headless.stop()


async def test_total_timeout_ends_a_model_that_never_stops() -> None:
    headless, url = await start_editor({"idleTimeoutSeconds": 5, "totalTimeoutSeconds": 1})
    try:
        async with aiohttp.ClientSession() as session:
            body = {"model": "drip", "input": "hi", "stream": True}
            started = time.monotonic()
            async with session.post(f"{url}/responses", json=body) as r:
                events = parse_sse(await asyncio.wait_for(r.text(), 20))
            took = time.monotonic() - started
        validate_stream(events)
        assert sum(e["type"] == "response.output_text.delta" for e in events) > 3
        failed = events[-1]
        assert failed["type"] == "response.failed"
        assert failed["response"]["error"]["code"] == "editor_timeout"
        assert "within 1 s" in failed["response"]["error"]["message"]
        assert took < 15
    finally:
        await headless.stop()


# --------------------------------------------------------------------------- client gone


async def test_client_disconnect_cancels_at_once_and_nothing_follows(
    editor: tuple[HeadlessEditor, StallingModel, str],
) -> None:
    headless, model, url = editor
    protocol: Any = headless.protocol
    received: list[tuple[float, str, Any]] = []
    handle_message = protocol.handle_message

    def record_message(message: dict[str, Any]) -> None:
        # Every message from the language server, `$/cancelRequest` included, passes here.
        method = message.get("method") or "(reply)"
        received.append((time.monotonic(), method, message.get("params")))
        handle_message(message)

    protocol.handle_message = record_message

    delays: list[float] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(5):
            resp, _ = await open_stream(session, url)
            received.clear()
            closed = time.monotonic()
            resp.close()  # the client goes away mid-answer
            for _ in range(200):
                if any(method == rpc.CANCEL_REQUEST for _, method, _ in received):
                    break
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.3)  # anything the server still sends arrives by now
            # The usage ledger counts what the cancelled request sent and got (no usage came
            # from the editor) with the editor's tokenizer: counting, never a chat.
            methods = [method for _, method, _ in received if method != "maestro/countTokens"]
            assert methods == [rpc.CANCEL_REQUEST], methods  # exactly one cancel, then silence
            delays.append(received[0][0] - closed)
    median = statistics.median(delays)
    print(f"$/cancelRequest after disconnect: median {median * 1000:.1f} ms, {delays}")
    assert median < CANCEL_BOUND, delays
    assert model.cancelled == 5


async def test_a_thousand_aborted_streams_leave_nothing_behind(
    editor: tuple[HeadlessEditor, StallingModel, str],
) -> None:
    """Each aborted stream must release its chat queue, pygls request future and result type,
    its tasks and its model slot; the counts come from the server's `maestro/stats`."""
    headless, model, url = editor
    assert headless.process is not None
    pid = headless.process.pid
    total, parallel = 1000, 16

    async def abort_streams(count: int) -> None:
        async with aiohttp.ClientSession() as session:
            queue = list(range(count))

            async def worker() -> None:
                while queue:
                    queue.pop()
                    resp, _ = await open_stream(session, url)
                    resp.close()

            await asyncio.gather(*(worker() for _ in range(parallel)))

    async def settled() -> dict[str, int]:
        for _ in range(100):
            now = await stats(headless)
            if now["chats"] == 0 and now["resultTypes"] == 0:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        return await stats(headless)

    await abort_streams(50)  # warm up: caches, connection pools, lazily made objects
    baseline = await settled()
    rss_before = _rss_bytes(pid)
    editor_tasks_before = len(asyncio.all_tasks())
    started = time.monotonic()
    await abort_streams(total)
    took = time.monotonic() - started
    after = await settled()
    rss_after = _rss_bytes(pid)
    print(
        f"{total} aborted streams in {took:.1f} s; server stats before {baseline}, after {after};"
        f" lsp RSS {rss_before / 2**20:.1f} -> {rss_after / 2**20:.1f} MiB"
    )
    # requestFutures also holds the editor requests being answered (this stats request).
    assert after["chats"] == 0 and after["resultTypes"] == 0
    assert after["requestFutures"] <= baseline["requestFutures"], (baseline, after)
    assert after["tasks"] <= baseline["tasks"], (baseline, after)
    assert rss_after - rss_before < 16 * 2**20, (rss_before, rss_after)
    assert len(asyncio.all_tasks()) <= editor_tasks_before + 1
    for _ in range(100):
        if model.cancelled >= total + 50:
            break
        await asyncio.sleep(0.05)
    assert model.cancelled == total + 50
    # Still serving, with every model slot free again.
    async with aiohttp.ClientSession() as session:
        bodies = [{"model": "sim-echo", "input": f"after {i}"} for i in range(8)]
        results = await asyncio.gather(
            *(session.post(f"{url}/responses", json=body) for body in bodies)
        )
        for resp in results:
            assert resp.status == 200
            assert (await resp.json())["status"] == "completed"


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_editor_gone_fails_our_requests_and_leaves_its_own_running() -> None:
    """pygls keeps the editor's requests being answered (tasks) in the table of our pending
    requests; losing the editor fails ours and must not try to fail those (a Task refuses
    set_exception, which crashed the server when the editor left mid-request)."""

    theirs = asyncio.ensure_future(asyncio.sleep(3600))
    ours: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    class Protocol:
        def __init__(self) -> None:
            self._request_futures: dict[str, Any] = {"7": theirs, "models-1": ours}

    backend = EditorBackend(Protocol())
    backend.editor_gone()
    assert isinstance(ours.exception(), EditorError)
    assert not theirs.done()
    theirs.cancel()
