"""Several editors, one port (VS Code windows): the first language server to bind serves, the
others stand by (`maestro/serverStandby`) and one takes over when it stops. Real language server
processes, each driven by its own headless editor; lsp/endpoint.py is what is tested."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from recording_model import RecordingModel

from bridge import SERVICE_NAME
from headless_editor.editor import EditorStartError, HeadlessEditor
from lsp import rpc

DEADLINE = 30.0  # bounds every wait; a takeover needs about a second


@dataclass
class Editor:
    """One editor window: its headless editor, its model, what the server told it."""

    headless: HeadlessEditor
    model: RecordingModel
    started: asyncio.Task[str]  # HeadlessEditor.start: the URL once this one serves
    standby: list[dict[str, Any]] = field(default_factory=list)


OpenEditor = Callable[..., Awaitable[Editor]]


@pytest.fixture
async def open_editor() -> AsyncIterator[OpenEditor]:
    """Starts editors (each with its language server); all are stopped when the test ends."""
    opened: list[Editor] = []

    async def open_one(port: int, standby: bool = True) -> Editor:
        model = RecordingModel()
        headless = HeadlessEditor(model=model)
        standby_seen: list[dict[str, Any]] = []
        headless.protocol.feature(rpc.SERVER_STANDBY)(standby_seen.append)
        started = asyncio.create_task(headless.start({"port": port, "standby": standby}))
        editor = Editor(headless, model, started, standby_seen)
        opened.append(editor)
        # Started once the server serves, stands by, or refused.
        await wait_for(lambda: editor.standby or started.done(), "the server to start")
        return editor

    yield open_one
    for editor in opened:
        editor.started.cancel()
        await asyncio.gather(editor.started, return_exceptions=True)
        await editor.headless.stop()
        process = editor.headless.process
        assert process is None or process.returncode is not None


async def wait_for(predicate: Callable[[], Any], what: str) -> Any:
    deadline = asyncio.get_running_loop().time() + DEADLINE
    while asyncio.get_running_loop().time() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def answer(url: str) -> str:
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{url}/responses", json={"model": "sim-echo", "input": "hi"}) as resp,
    ):
        assert resp.status == 200, await resp.text()
        body = await resp.json()
        return str(body["output"][-1]["content"][0]["text"])


async def test_health_says_it_is_maestro_bridge(open_editor: OpenEditor) -> None:
    editor = await open_editor(0)
    url = await editor.started
    async with (
        aiohttp.ClientSession() as session,
        session.get(url.removesuffix("/v1") + "/health") as resp,
    ):
        body = await resp.json()
    assert body["status"] == "ok" and body["service"] == SERVICE_NAME


async def test_a_second_editor_stands_by_and_takes_over(open_editor: OpenEditor) -> None:
    port = free_port()
    first = await open_editor(port)
    url = await first.started
    assert url == f"http://127.0.0.1:{port}/v1"
    second = await open_editor(port)
    assert second.standby == [{"url": url, "host": "127.0.0.1", "port": port}]
    assert not second.started.done()
    assert await answer(url)
    assert (len(first.model.requests), len(second.model.requests)) == (1, 0)

    await first.headless.stop()  # the serving window closes
    assert await asyncio.wait_for(second.started, DEADLINE) == url
    assert await answer(url)
    assert (len(first.model.requests), len(second.model.requests)) == (1, 1)
    assert len(second.standby) == 1  # said once, not on every retry


async def test_editors_starting_at_once_settle_on_one_server(open_editor: OpenEditor) -> None:
    port = free_port()
    editors = await asyncio.gather(*(open_editor(port) for _ in range(3)))
    await wait_for(
        lambda: sum(e.started.done() for e in editors) + sum(bool(e.standby) for e in editors) == 3,
        "every server to serve or stand by",
    )
    serving = [e for e in editors if e.started.done()]
    assert len(serving) == 1, [(e.started, e.standby) for e in editors]
    [server] = serving
    url = server.started.result()
    waiting = [e for e in editors if e is not server]
    assert all(e.standby and e.standby[0]["url"] == url for e in waiting)

    await server.headless.stop()
    await wait_for(lambda: any(e.started.done() for e in waiting), "one to take over")
    [taken] = [e for e in waiting if e.started.done()]
    assert taken.started.result() == url
    assert await answer(url)
    assert len(taken.model.requests) == 1
    # The other one still stands by, now for the new server.
    [still] = [e for e in waiting if e is not taken]
    assert not still.started.done() and len(still.standby) == 1


async def test_stopping_an_editor_that_stands_by(open_editor: OpenEditor) -> None:
    port = free_port()
    first = await open_editor(port)
    url = await first.started
    second = await open_editor(port)
    assert second.standby
    await second.headless.stop()  # LSP shutdown ends the standing by; the process exits
    assert second.headless.process is not None and second.headless.process.returncode == 0
    assert await answer(url)
    assert len(first.model.requests) == 1


async def test_without_standby_a_port_held_by_a_bridge_names_it(
    open_editor: OpenEditor,
) -> None:
    port = free_port()
    first = await open_editor(port)
    url = await first.started
    second = await open_editor(port, standby=False)
    with pytest.raises(EditorStartError) as caught:
        await second.started
    message = str(caught.value)
    assert f"Cannot listen on 127.0.0.1:{port}" in message
    assert "address already in use" in message
    assert f"another Maestro Bridge serves {url}" in message
    assert not second.standby


async def test_a_port_held_by_another_http_server_is_an_error(open_editor: OpenEditor) -> None:
    async def health(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})  # some other service's health check

    other = web.Application()
    other.router.add_get("/health", health)
    runner = web.AppRunner(other)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    try:
        editor = await open_editor(port)
        with pytest.raises(EditorStartError) as caught:
            await editor.started
    finally:
        await runner.cleanup()
    assert f"Cannot listen on 127.0.0.1:{port}" in str(caught.value)
    assert "not Maestro Bridge" in str(caught.value)
    assert not editor.standby


async def test_a_port_held_by_a_silent_program_is_an_error(open_editor: OpenEditor) -> None:
    with socket.socket() as taken:  # listens, never answers
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        editor = await open_editor(port)
        with pytest.raises(EditorStartError) as caught:
            await editor.started
    assert f"Cannot listen on 127.0.0.1:{port}" in str(caught.value)
    assert "does not answer as Maestro Bridge" in str(caught.value)
    assert not editor.standby
