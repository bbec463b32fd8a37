"""Limits, against the real language server process (driven by the headless editor in this
test process, with limits set through the editor's initialization options)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.core.parts import ResponsePart, TextPart
from bridge.core.request_limits import check_request_shape, json_depth_exceeded
from headless_editor.chat_types import ChatRequest, ModelInfo
from headless_editor.editor import HeadlessEditor
from headless_editor.script import Script
from headless_editor.simulated_model import SimulatedModel

SMALL_LIMITS = {
    "maxBodyBytes": 4096,
    "maxInputItems": 3,
    "maxTools": 2,
    "maxJsonDepth": 10,
    "maxConcurrentRequests": 2,
}


class HoldingModel(SimulatedModel):
    """`hold` answers one part, then waits until the test releases it (a model still talking)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    def models(self) -> list[ModelInfo]:
        return [*super().models(), ModelInfo(id="hold", name="Hold", maxInputTokens=1000)]

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        if request.model != "hold":
            async for part in super().respond(request, rules):
                yield part
            return
        yield TextPart(value="first ")
        await self.release.wait()
        yield TextPart(value="last")


@pytest.fixture
async def limited() -> AsyncIterator[tuple[str, HoldingModel]]:
    model = HoldingModel()
    editor = HeadlessEditor(model=model)
    url = await editor.start({"port": 0, "limits": SMALL_LIMITS})
    yield url, model
    await editor.stop()


async def post(url: str, body: Any, **kwargs: Any) -> tuple[int, dict[str, str], Any]:
    async with aiohttp.ClientSession() as session, session.post(url, **kwargs, json=body) as r:
        return r.status, dict(r.headers), await r.json(content_type=None)


def assert_error(status: int, body: Any, expected: int, code: str, param: str | None) -> None:
    assert status == expected, body
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["code"] == code
    assert body["error"]["param"] == param


def nested(depth: int) -> Any:
    """`depth` arrays, one inside the other."""
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


# --------------------------------------------------------------------------- request shape


def test_json_depth() -> None:
    assert not json_depth_exceeded(nested(5), 5)
    assert json_depth_exceeded(nested(6), 5)
    assert not json_depth_exceeded({"a": [{"b": 1}]}, 3)
    assert json_depth_exceeded({"a": [{"b": []}]}, 3)
    json_depth_exceeded(nested(100_000), 100)  # iterative: no RecursionError


def test_shape_limits_name_the_parameter() -> None:
    limits = Limits(maxInputItems=2, maxTools=1, maxJsonDepth=8)
    check_request_shape({"input": [{}, {}], "tools": [{}]}, limits)
    for body, param in (
        ({"input": [{}, {}, {}]}, "input"),
        ({"tools": [{}, {}]}, "tools"),
        ({"metadata": {"a": nested(8)}}, "metadata"),
    ):
        with pytest.raises(Exception) as info:
            check_request_shape(body, limits)
        assert getattr(info.value, "param", None) == param, body
        assert getattr(info.value, "status", None) == 400


def test_tools_in_additional_tools_items_count_toward_the_limit() -> None:
    limits = Limits(maxInputItems=5, maxTools=2, maxJsonDepth=8)
    more = {"type": "additional_tools", "tools": [{}, {}]}
    check_request_shape({"input": [more]}, limits)
    with pytest.raises(ApiError) as info:
        check_request_shape({"tools": [{}], "input": [more]}, limits)
    assert info.value.param == "tools"
    assert info.value.code == "array_above_max_length"


async def test_limits_from_the_editor_options(limited: tuple[str, HoldingModel]) -> None:
    url, _ = limited
    responses = f"{url}/responses"
    message = {"role": "user", "content": "hi"}
    status, _, body = await post(responses, {"model": "sim-echo", "input": [message] * 3})
    assert status == 200, body
    status, _, body = await post(responses, {"model": "sim-echo", "input": [message] * 4})
    assert_error(status, body, 400, "array_above_max_length", "input")
    tool = {"type": "function", "name": "t", "parameters": {"type": "object"}}
    status, _, body = await post(
        responses, {"model": "sim-echo", "input": "x", "tools": [tool] * 3}
    )
    assert_error(status, body, 400, "array_above_max_length", "tools")
    deep_tool = {**tool, "parameters": {"type": "object", "properties": {"a": nested(12)}}}
    status, _, body = await post(
        responses, {"model": "sim-echo", "input": "x", "tools": [deep_tool]}
    )
    assert_error(status, body, 400, "nesting_too_deep", "tools")
    status, _, body = await post(responses, {"model": "sim-echo", "input": "x" * 5000})
    assert_error(status, body, 413, "request_too_large", None)


async def test_default_depth_limit(bridge_server: Any) -> None:
    url = f"{bridge_server.base_url}/responses"
    status, _, body = await post(url, {"model": "sim-echo", "input": nested(150)})
    assert_error(status, body, 400, "nesting_too_deep", "input")
    # Deeper than Python's parser recursion: still a 400, never a 500.
    raw = "[" * 50_000 + "]" * 50_000
    status, _, body = await post(url, None, data=raw, headers={"Content-Type": "application/json"})
    assert status == 400 and body["error"]["code"] in ("invalid_json", "nesting_too_deep")
    bridge_server.assert_alive()


# --------------------------------------------------------------------------- concurrency


async def test_concurrency_cap_answers_429_with_retry_after(
    limited: tuple[str, HoldingModel],
) -> None:
    url, model = limited
    hold = {"model": "hold", "input": "hi", "stream": True}
    async with aiohttp.ClientSession() as session:
        streams = [await session.post(f"{url}/responses", json=hold) for _ in range(2)]
        for stream in streams:
            assert stream.status == 200
            seen = b""
            while b"response.output_text.delta" not in seen:
                seen += await stream.content.readany()
        for body in (hold, {"model": "sim-echo", "input": "x"}):
            async with session.post(f"{url}/responses", json=body) as resp:
                assert resp.status == 429
                assert int(resp.headers["Retry-After"]) >= 1
                error = (await resp.json())["error"]
                assert error["code"] == "too_many_concurrent_requests"
                assert error["type"] == "rate_limit_error"
        # Other endpoints are not model requests: still served.
        async with session.get(f"{url}/models") as resp:
            assert resp.status == 200
        model.release.set()
        for stream in streams:
            text = await stream.text()
            assert "response.completed" in text
            stream.release()
        # Slots are given back when streams end.
        for _ in range(3):
            async with session.post(
                f"{url}/responses", json={"model": "sim-echo", "input": "x"}
            ) as resp:
                assert resp.status == 200, await resp.text()


async def test_aborted_streams_give_their_slots_back(limited: tuple[str, HoldingModel]) -> None:
    url, _ = limited
    hold = {"model": "hold", "input": "hi", "stream": True}
    async with aiohttp.ClientSession() as session:
        for _ in range(5):  # more than the cap, one after the other
            resp = await session.post(f"{url}/responses", json=hold)
            assert resp.status == 200, await resp.text()
            seen = b""
            while b"response.output_text.delta" not in seen:
                seen += await resp.content.readany()
            resp.close()
            await asyncio.sleep(0.05)
        status, _, body = await post(f"{url}/responses", {"model": "sim-echo", "input": "x"})
    assert status == 200, json.dumps(body)
