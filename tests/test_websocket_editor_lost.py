"""Issue 27: the editor process dies while WebSocket turns stream, against a real `serve`.

`maestro-bridge serve` is the editor (the headless editor and its simulated model); its
language server is the child that holds the sockets. Killing `serve` closes the language
server's pipes, as an editor crash does. Over HTTP the open streams then end with
`response.failed` (`editor_unavailable`); a WebSocket used to be closed at once, without it.
Now every open WebSocket gets that final event for its running turn, and then the close frame
1001 (going away); one with no turn running gets the close frame only.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer, StartServer, is_running
from processes import kill_tree
from spec_validation import validate_stream

WAIT = 20.0  # against hangs only

SLOW_SCRIPT = {
    "rules": [
        {
            "match": "slowly",
            "reply": [
                {"type": "text", "text": "one "},
                {"type": "pause", "seconds": 30},
                {"type": "text", "text": "two"},
            ],
        }
    ]
}


def ws_url(server: BridgeServer) -> str:
    return server.root_url.replace("http://", "ws://", 1) + "/v1/responses"


async def until_first_delta(ws: aiohttp.ClientWebSocketResponse) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] != "response.output_text.delta":
        message = await ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        events.append(json.loads(message.data))
    return events


async def rest_of(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[dict[str, Any]], Any]:
    """The events until the connection closes, and the close code."""
    events: list[dict[str, Any]] = []
    while True:
        message = await ws.receive(timeout=WAIT)
        if message.type != aiohttp.WSMsgType.TEXT:
            return (
                events,
                ws.close_code if message.type != aiohttp.WSMsgType.CLOSE else message.data,
            )
        events.append(json.loads(message.data))


# Which the language server hears first, its stdin's end or its stdout's, is up to the
# kernel: several servers, so that a missing final event shows whichever comes first.
@pytest.mark.parametrize("busy_sockets", [1, 2, 4])
async def test_editor_killed_mid_turn_fails_every_websocket_turn_then_closes_1001(
    bridge_server_factory: StartServer, busy_sockets: int
) -> None:
    server = bridge_server_factory(script=SLOW_SCRIPT)
    [lsp] = server.lsp_pids
    frame = {"type": "response.create", "model": "sim-echo", "input": "Answer slowly."}
    try:
        async with aiohttp.ClientSession() as http:
            busy = [await http.ws_connect(ws_url(server)) for _ in range(busy_sockets)]
            idle = await http.ws_connect(ws_url(server))
            started = []
            for ws in busy:
                await ws.send_str(json.dumps(frame))
                started.append(await until_first_delta(ws))

            server.release()  # this test ends the server itself
            server.process.kill()  # the editor dies, no goodbye
            server.process.wait(timeout=WAIT)

            for ws, first in zip(busy, started, strict=True):
                rest, code = await rest_of(ws)
                assert rest, "the socket closed without the turn's final event"
                events = first + rest
                validate_stream(events)
                assert events[-1]["type"] == "response.failed", events[-1]
                assert events[-1]["response"]["error"]["code"] == "editor_unavailable"
                assert code == aiohttp.WSCloseCode.GOING_AWAY, code
            rest, code = await rest_of(idle)
            assert rest == [] and code == aiohttp.WSCloseCode.GOING_AWAY, (rest, code)
            for ws in [*busy, idle]:
                await ws.close()
        # And the language server is gone soon after, freeing the port.
        deadline = time.monotonic() + WAIT
        while is_running(lsp) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert not is_running(lsp), "the language server outlived its editor"
    finally:
        kill_tree(server.process.pid)
        if is_running(lsp):
            kill_tree(lsp)
