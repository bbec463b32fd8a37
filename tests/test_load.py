"""Load: 64 streaming requests at once, no error, no lost or reordered event.

Every stream is checked event by event: sequence numbers run 0, 1, 2, ... in order, the
deltas of each text item add up to its `done` text and to the text in the final Response,
and that text is the answer the simulated model gives for that very request.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer
from spec_validation import parse_sse, validate_stream

from bridge.core.parts import ResponsePart, TextPart
from headless_editor.chat_types import ChatRequest, ModelInfo
from headless_editor.editor import HeadlessEditor
from headless_editor.script import Script
from headless_editor.simulated_model import SimulatedModel

CONCURRENT = 64
BOUND_SECONDS = 120  # against hangs only; this is not a speed target


def check_stream(events: list[dict[str, Any]]) -> str:
    """The checks above; returns the final output text."""
    validate_stream(events)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[-1]["type"] == "response.completed", events[-1]
    deltas: dict[tuple[str, int], str] = {}
    done: dict[tuple[str, int], str] = {}
    for event in events:
        key = (event.get("item_id", ""), event.get("content_index", 0))
        if event["type"] == "response.output_text.delta":
            assert key not in done, "a delta after its done event"
            deltas[key] = deltas.get(key, "") + event["delta"]
        elif event["type"] == "response.output_text.done":
            done[key] = event["text"]
    assert done and deltas == done
    final = events[-1]["response"]
    texts = [
        part["text"]
        for item in final["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    ]
    assert texts == list(done.values())
    return "".join(texts)


async def stream(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> str:
    async with session.post(f"{url}/responses", json={**body, "stream": True}) as resp:
        text = await resp.text()
        assert resp.status == 200, text
    return check_stream(parse_sse(text))


async def test_64_concurrent_streams_against_serve(bridge_server: BridgeServer) -> None:
    connector = aiohttp.TCPConnector(limit=CONCURRENT)
    async with aiohttp.ClientSession(connector=connector) as session:
        bodies = [
            {
                "model": "sim-reasoning" if i % 2 else "sim-echo",
                "input": f"request {i}: " + " ".join(f"word{i}-{n}" for n in range(30)),
            }
            for i in range(CONCURRENT)
        ]
        texts = await asyncio.wait_for(
            asyncio.gather(*(stream(session, bridge_server.base_url, b) for b in bodies)),
            BOUND_SECONDS,
        )
    for body, text in zip(bodies, texts, strict=True):
        # The simulated model echoes (the first 200 characters of) this request's input.
        assert text == f"You said: {body['input'][:200]}"
    bridge_server.assert_alive()


class GateModel(SimulatedModel):
    """Holds every chat until `expected` chats are open at once, then all stream together:
    proof that the bridge held that many model requests concurrently."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected = expected
        self.open = 0
        self.most_open = 0
        self.all_in = asyncio.Event()

    def models(self) -> list[ModelInfo]:
        return [ModelInfo(id="gate", name="Gate", maxInputTokens=100_000)]

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        if self.open >= self.expected:
            self.all_in.set()
        try:
            await self.all_in.wait()
            tag = request.messages[-1].content[0]
            assert isinstance(tag, TextPart)
            for n in range(40):
                await asyncio.sleep(0)  # interleave the 64 streams part by part
                yield TextPart(value=f"{tag.value}:{n} ")
        finally:
            self.open -= 1


@pytest.fixture
async def gated() -> AsyncIterator[tuple[str, GateModel]]:
    model = GateModel(CONCURRENT)
    editor = HeadlessEditor(model=model)
    url = await editor.start({"port": 0})  # default limits: 64 model requests at once
    yield url, model
    await editor.stop()


async def test_64_streams_held_open_at_once(gated: tuple[str, GateModel]) -> None:
    url, model = gated
    connector = aiohttp.TCPConnector(limit=CONCURRENT + 1)
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = [
            asyncio.create_task(stream(session, url, {"model": "gate", "input": f"r{i}"}))
            for i in range(CONCURRENT)
        ]
        await asyncio.wait_for(model.all_in.wait(), BOUND_SECONDS)
        texts = await asyncio.wait_for(asyncio.gather(*tasks), BOUND_SECONDS)
    assert model.most_open == CONCURRENT
    for i, text in enumerate(texts):
        assert text == "".join(f"r{i}:{n} " for n in range(40))
