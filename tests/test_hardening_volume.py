"""Issue 14, volume: what one connection keeps, and the cost of big or many-item bodies.

Against a real `maestro-bridge serve`:
- continued WebSocket turns that each add a big image reach `limits.websocketKeptBytes`
  and get a `conversation_too_large` error event; the language server's memory stays
  bounded and the connection still answers a fresh turn;
- 10,000 tool calls and results with one call id are paired and answered quickly (the
  conversion was quadratic: 3 s for the sequential shape, 31 s for the parallel one);
- a 31 MiB body of one-character strings is refused (`limits.maxJsonValues`) without
  stalling `/health` of another client (it blocked the event loop for seconds).
Plus the pure parts: image token estimates, the context check counting images, the JSON
value cap.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer, StartServer
from spec_validation import validate_websocket_error

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    DataPart,
    EditorError,
    ModelInfo,
    TextPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.image_tokens import (
    MAX_IMAGE_TOKENS,
    MIN_IMAGE_TOKENS,
    data_part_tokens,
    image_size,
    image_tokens,
)
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape, json_shape
from bridge.core.token_limits import enforce_count_input, input_too_long, limit_context

MIB = 1024 * 1024
TIMEOUT = aiohttp.ClientTimeout(total=120)
WAIT = 60.0  # against hangs only


# --------------------------------------------------------------------------- helpers


def png(width: int, height: int, filler: int = 0) -> bytes:
    """A PNG header with the given size, then `filler` bytes of noise-like data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
    header += struct.pack(">I", zlib.crc32(chunk))
    # Varied bytes (not one repeated byte), so nothing along the way can make them small.
    noise = (bytes(range(256)) * (filler // 256 + 1))[:filler]
    return header + noise


def data_url(image: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(image).decode("ascii")


def image_message(image: bytes, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": text},
            {"type": "input_image", "image_url": data_url(image)},
        ],
    }


def ws_url(server: BridgeServer) -> str:
    return server.root_url.replace("http://", "ws://", 1) + "/responses"


async def ws_turn(ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> dict[str, Any]:
    """Send a create frame; its terminal event, or its error event."""
    await ws.send_str(json.dumps(frame))
    while True:
        message = await ws.receive(timeout=WAIT)
        assert message.type == aiohttp.WSMsgType.TEXT, message
        event: dict[str, Any] = json.loads(message.data)
        if event["type"] == "error":
            validate_websocket_error(event)
            return event
        if event["type"] in ("response.completed", "response.failed", "response.incomplete"):
            return event


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


# --------------------------------------------------------------------------- WebSocket cap


async def test_continued_websocket_turns_with_big_images_hit_the_kept_cap(
    bridge_server_factory: StartServer,
) -> None:
    cap = 24 * MIB
    server = bridge_server_factory("--websocket-kept-bytes", str(cap))
    [lsp_pid] = server.lsp_pids
    image = png(1024, 768, 4 * MIB)  # 5.3 MiB as base64: the 5th continuation passes 24 MiB
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        http.ws_connect(ws_url(server), max_msg_size=0) as ws,
    ):
        previous: str | None = None
        outcomes: list[str] = []
        rss: list[int] = []
        for turn in range(1, 11):
            frame: dict[str, Any] = {
                "type": "response.create",
                "model": "sim-echo",
                "input": [image_message(image, f"Picture {turn}.")],
            }
            if previous is not None:
                frame["previous_response_id"] = previous
            event = await ws_turn(ws, frame)
            rss.append(rss_bytes(lsp_pid))
            if event["type"] == "error":
                outcomes.append(event["error"]["code"])
                assert event["status"] == 400
                assert "websocketKeptBytes" in event["error"]["message"]
                assert "previous_response_id" in event["error"]["message"]
                continue  # and continue the same (now refused) response again
            assert event["type"] == "response.completed", event
            outcomes.append("completed")
            previous = event["response"]["id"]
        # Four turns fit (about 21 MiB); every continuation after that is refused.
        assert outcomes == ["completed"] * 4 + ["conversation_too_large"] * 6, outcomes
        # Refused turns keep nothing: memory does not grow with them (unbounded, it grew by
        # more than each turn's image several times over).
        assert rss[-1] - rss[4] < 3 * cap, [r // MIB for r in rss]

        # The connection still works for a fresh turn, and that one is kept again.
        fresh = await ws_turn(
            ws, {"type": "response.create", "model": "sim-echo", "input": "Start over."}
        )
        assert fresh["type"] == "response.completed", fresh
        again = await ws_turn(
            ws,
            {
                "type": "response.create",
                "model": "sim-echo",
                "input": "And again.",
                "previous_response_id": fresh["response"]["id"],
            },
        )
        assert again["type"] == "response.completed", again


# --------------------------------------------------------------------------- many items


def one_id_history(items: int) -> list[dict[str, Any]]:
    """`items` input items whose tool calls and results all use the call id `call_1`.

    Half as sequential turns (a call, its result), then one turn of many parallel calls with
    more results than calls, then a last call and its result: the shapes that were quadratic
    (suffixing a reused id, merging calls into one message, looking a result up among the
    earlier ones).
    """

    def call(name: str, arguments: dict[str, int]) -> dict[str, Any]:
        encoded = json.dumps(arguments)
        return {"type": "function_call", "call_id": "call_1", "name": name, "arguments": encoded}

    def result(output: str) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": "call_1", "output": output}

    calls, extra = items * 3 // 10, items // 5  # the parallel turn: calls, unpaired results
    history: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": "Go."}]
    for i in range((items - 3 - 2 * calls - extra) // 2):
        history += [call("step", {"i": i}), result(f"r{i}")]
    history += [call("fan", {"j": j}) for j in range(calls)]
    history += [result(f"x{j}") for j in range(calls + extra)]
    if len(history) + 2 < items:  # an odd count: one more user message up front
        history.insert(1, {"type": "message", "role": "user", "content": "Carry on."})
    return [*history, call("last_tool", {}), result("the end!")]


async def test_ten_thousand_items_with_one_call_id_are_paired_and_answered(
    bridge_server: BridgeServer,
) -> None:
    history = one_id_history(10_000)
    assert len(history) == 10_000
    body = {"model": "sim-echo", "input": history}
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        started = time.monotonic()
        async with http.post(f"{bridge_server.base_url}/responses", json=body) as reply:
            answer = await reply.json()
        elapsed = time.monotonic() - started
    assert reply.status == 200, answer
    # The last call (its id suffixed, as every reuse of `call_1`) got its result paired right
    # after it: the model answers about that tool and that result.
    text = answer["output"][0]["content"][0]["text"]
    assert text == "The tool last_tool returned 8 characters.", text
    # Generous: about 1.2 s here; quadratic, this took more than 20 s.
    assert elapsed < 10, f"10,000 items took {elapsed:.1f} s"


# --------------------------------------------------------------------------- big bodies


async def _health_gaps(http: aiohttp.ClientSession, url: str, stop: asyncio.Event) -> float:
    """The longest `/health` round trip while `stop` is not set."""
    longest = 0.0
    while not stop.is_set():
        started = time.monotonic()
        async with http.get(url) as reply:
            assert reply.status == 200
        longest = max(longest, time.monotonic() - started)
        await asyncio.sleep(0.02)
    return longest


async def test_big_body_of_tiny_strings_is_refused_without_stalling_health(
    bridge_server: BridgeServer,
) -> None:
    parts = [{"type": "input_text", "text": "a"}] * (31 * MIB // 36)
    raw = json.dumps({"model": "sim-echo", "input": [{"role": "user", "content": parts}]})
    assert 30 * MIB < len(raw) < 32 * MIB
    health = bridge_server.root_url + "/health"
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        aiohttp.ClientSession(timeout=TIMEOUT) as other,
    ):
        async with other.get(health) as warm:
            assert warm.status == 200
        stop = asyncio.Event()
        watcher = asyncio.create_task(_health_gaps(other, health, stop))
        try:
            headers = {"Content-Type": "application/json"}
            async with http.post(
                f"{bridge_server.base_url}/responses", data=raw.encode(), headers=headers
            ) as reply:
                answer = await reply.json()
        finally:
            stop.set()
            longest = await watcher
    # Parsing the JSON itself (C code, holding the GIL) takes ~0.5 s; before the cap, the
    # walk, validation and conversion held the loop for 10 s and more.
    assert longest < 3.0, f"/health waited {longest:.2f} s"
    assert reply.status == 400, answer
    assert answer["error"]["code"] == "too_many_values"
    assert answer["error"]["param"] == "input"


async def test_input_tokens_obey_the_json_value_cap(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--max-json-values", "1000")
    body = {"model": "sim-echo", "input": [{"role": "user", "content": "hi"}] * 400}
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        http.post(f"{server.base_url}/responses/input_tokens", json=body) as reply,
    ):
        answer = await reply.json()
    assert reply.status == 400, answer
    assert answer["error"]["code"] == "too_many_values"


# --------------------------------------------------------------------------- pure parts


def test_json_shape_stops_at_the_value_cap() -> None:
    huge = {"k": ["a"] * 2_000_000}
    too_deep, counted = json_shape(huge, 100, 1000)
    assert not too_deep
    assert 1000 < counted <= 2_000_002
    assert json_shape({"a": [1, {"b": "c"}]}, 100, 1000) == (False, 5)
    limits = Limits(maxJsonValues=1000)
    with pytest.raises(ApiError) as caught:
        check_request_shape({"model": "m", "metadata": {"k": ["a"] * 2000}}, limits)
    assert (caught.value.status, caught.value.code, caught.value.param) == (
        400,
        "too_many_values",
        "metadata",
    )
    check_request_shape({"model": "m", "input": [{"role": "user", "content": "x"}] * 100}, limits)


def _gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00" * 8


def _jpeg(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHH", 17, 8, height, width) + b"\x00" * 10
    return b"\xff\xd8" + app0 + sof


def _webp_vp8x(width: int, height: int) -> bytes:
    body = b"\x00" * 4 + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + b"\x00" * 4 + b"WEBPVP8X" + struct.pack("<I", 10) + body


def test_image_sizes_are_read_from_their_headers() -> None:
    assert image_size(png(640, 480)) == (640, 480)
    assert image_size(_gif(32, 16)) == (32, 16)
    assert image_size(_jpeg(1920, 1080)) == (1920, 1080)
    assert image_size(_webp_vp8x(300, 200)) == (300, 200)
    assert image_size(b"not an image") is None


def test_image_token_estimates() -> None:
    assert image_tokens(16, 16) == MIN_IMAGE_TOKENS  # tiny images cost the floor
    assert image_tokens(1000, 750) == 1000  # 750,000 pixels / 750
    assert image_tokens(8000, 8000) <= MAX_IMAGE_TOKENS  # scaled down like the providers do
    part = DataPart(mimeType="image/png", data=base64.b64encode(png(1000, 750)).decode())
    assert data_part_tokens(part) == 1000
    unreadable = DataPart(mimeType="image/png", data=base64.b64encode(b"??").decode())
    assert data_part_tokens(unreadable) == MAX_IMAGE_TOKENS
    text_data = DataPart(mimeType="application/json", data=base64.b64encode(b"{}").decode())
    assert data_part_tokens(text_data) == 0


async def _characters(text: str) -> int:
    """A token counter: one token per character."""
    return len(text)


async def test_images_count_toward_the_context_window() -> None:
    image = DataPart(mimeType="image/png", data=base64.b64encode(png(1000, 750)).decode())
    model = ModelInfo(id="m", maxInputTokens=2500)
    two_images = ChatRequest(
        model="m",
        messages=[
            ChatMessage(role="user", content=[TextPart(value="look"), image]),
            ChatMessage(role="user", content=[ToolResultPart(callId="c", content=[image])]),
        ],
    )
    limit_context(two_images, model)
    assert two_images.countInput is None  # 4 bytes and two images of 1,000 tokens: it fits
    three = ChatRequest(
        model="m", messages=[*two_images.messages, ChatMessage(role="user", content=[image])]
    )
    limit_context(three, model)
    assert three.countInput is not None and three.countInput.imageTokens == 3000
    with pytest.raises(EditorError) as refused:
        await enforce_count_input(_characters, three)
    error = input_too_long(three, refused.value.input_tokens)
    assert error.code == "context_length_exceeded"
    assert "3004 tokens" in error.message
