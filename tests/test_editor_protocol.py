"""The editor protocol end to end: the real language server process over stdio, driven by the
headless editor in this test process, with models written for each test."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from recording_model import RecordingModel
from spec_validation import parse_sse, validate_stream

from bridge.core.parts import EditorError
from headless_editor.chat_types import ModelInfo
from headless_editor.editor import EditorStartError, HeadlessEditor
from headless_editor.simulated_model import SimulatedModel


@pytest.fixture
async def editor() -> AsyncIterator[tuple[HeadlessEditor, RecordingModel]]:
    model = RecordingModel()
    editor = HeadlessEditor(model=model)
    await editor.start({"port": 0})
    yield editor, model
    await editor.stop()
    assert editor.process is not None and editor.process.returncode is not None


async def _post(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as resp:
        return resp.status, await resp.json()


async def test_tool_schema_with_dollar_keys_arrives_intact(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    headless, model = editor
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"from": {"$ref": "#/$defs/place"}, "class": {"type": "string"}},
        "required": ["from"],
        "$defs": {"place": {"type": "string"}},
    }
    tool = {"type": "function", "name": "go", "description": "d", "parameters": schema}
    status, body = await _post(
        f"{headless.url}/responses", {"model": "sim-echo", "input": "hi", "tools": [tool]}
    )
    assert status == 200, body
    # All but `$schema`, which the bridge leaves out for Copilot's upstream (draft 7 only).
    sent = {key: value for key, value in schema.items() if key != "$schema"}
    assert model.requests[-1].tools[0].inputSchema == sent
    call = body["output"][-1]
    assert call["type"] == "function_call" and call["name"] == "go"
    assert json.loads(call["arguments"]) == {"from": "placeholder"}


async def test_client_disconnect_cancels_the_editor_request(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    headless, model = editor
    async with aiohttp.ClientSession() as session:
        resp = await session.post(
            f"{headless.url}/responses", json={"model": "slow", "input": "hi", "stream": True}
        )
        seen = b""
        while b"response.output_text.delta" not in seen:
            seen += await resp.content.readany()
        resp.close()  # the client goes away mid-answer
    await asyncio.wait_for(model.cancelled.wait(), 5)
    # The server stays usable afterwards.
    status, body = await _post(f"{headless.url}/responses", {"model": "sim-echo", "input": "x"})
    assert status == 200 and body["status"] == "completed"


@pytest.mark.parametrize(
    ("code", "status", "error_code"),
    [
        ("NotFound", 404, "model_not_found"),
        ("NoPermissions", 403, "permission_denied"),
        ("Blocked", 429, "rate_limit_exceeded"),
        ("Other", 502, "editor_error"),
    ],
)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
async def test_editor_errors_keep_their_code(
    editor: tuple[HeadlessEditor, RecordingModel],
    code: Any,
    status: int,
    error_code: str,
    stream: bool,
) -> None:
    """Before its first part, a failure is the same HTTP error whether the client streams or
    not: nothing has been sent yet (the headers wait for the first part)."""
    headless, model = editor
    model.error = EditorError(code, f"editor says {code}")
    body = {"model": "sim-echo", "input": "x", "stream": stream}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{headless.url}/responses", json=body) as r,
    ):
        assert r.status == status
        assert r.content_type == "application/json"
        answer = await r.json()
        assert set(answer) == {"error"}
        assert answer["error"]["code"] == error_code
        assert answer["error"]["message"].startswith(f"editor says {code}")
        # Only a permission problem gets the editor's way out appended.
        told = "Authorize Model Access" in answer["error"]["message"]
        assert told == (code == "NoPermissions")
        assert r.headers.get("Retry-After") == ("10" if status == 429 else None)


@pytest.mark.parametrize(("code", "error_code"), [("Blocked", "rate_limit_exceeded")])
async def test_editor_error_after_the_first_part_fails_the_stream(
    editor: tuple[HeadlessEditor, RecordingModel], code: Any, error_code: str
) -> None:
    headless, model = editor
    model.fail_next = EditorError(code, f"editor says {code}")  # after one word
    body = {"model": "sim-echo", "input": "x", "stream": True}
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{headless.url}/responses", json=body) as r,
    ):
        text = await r.text()
    assert r.status == 200
    events = parse_sse(text)
    validate_stream(events)
    assert events[-1]["type"] == "response.failed"
    assert events[-1]["response"]["error"]["code"] == error_code


async def test_usage_part_from_the_editor_becomes_usage(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    headless, _ = editor
    status, body = await _post(f"{headless.url}/responses", {"model": "sim-echo", "input": "hi"})
    assert status == 200
    usage = body["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


async def test_without_a_usage_part_the_editor_counts_tokens(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    headless, model = editor
    model.send_usage = False
    status, body = await _post(
        f"{headless.url}/responses", {"model": "sim-echo", "input": "count these words"}
    )
    assert status == 200
    # Two `maestro/countTokens` requests: the input, then the output text.
    assert model.counted == ["count these words", "You said: count these words"]
    assert body["usage"]["input_tokens"] == model.count_tokens("count these words")
    assert body["usage"]["output_tokens"] == model.count_tokens("You said: count these words")


async def test_without_a_usage_part_the_ledger_takes_the_dialect_s_count(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    """The usage ledger's row of an answer without a usage report holds the count the client
    was sent, and the editor counts the text once (bridge/usage/meter.py)."""
    headless, model = editor
    model.send_usage = False
    text = "count these words for the ledger"
    status, body = await _post(f"{headless.url}/responses", {"model": "sim-echo", "input": text})
    assert status == 200
    recent: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(100):
            async with session.get(f"{headless.url}/usage?recent=200") as reply:
                recent = [
                    row
                    for row in (await reply.json())["recent"]
                    if row["input_tokens"] == body["usage"]["input_tokens"] and row["estimated"]
                ]
            if recent:
                break
            await asyncio.sleep(0.05)
    assert recent and recent[0]["output_tokens"] == body["usage"]["output_tokens"], recent
    assert model.counted == [text, f"You said: {text}"]  # once each, not again for the ledger


async def test_models_changed_notification_refreshes_the_list(
    editor: tuple[HeadlessEditor, RecordingModel],
) -> None:
    headless, model = editor
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{headless.url}/models") as r:
            before = {m["id"] for m in (await r.json())["data"]}
        extra = ModelInfo(id="late", name="Late", maxInputTokens=10)
        model.models = lambda: [*SimulatedModel().models(), extra]  # type: ignore[method-assign]
        async with session.get(f"{headless.url}/models") as r:
            cached = {m["id"] for m in (await r.json())["data"]}
        headless.protocol.notify_raw("maestro/modelsChanged", None)
        await asyncio.sleep(0.2)
        async with session.get(f"{headless.url}/models") as r:
            after = {m["id"] for m in (await r.json())["data"]}
    assert "slow" in before and before == cached
    assert "late" in after and "slow" not in after


async def test_wrong_protocol_version_is_refused() -> None:
    headless = HeadlessEditor()
    with pytest.raises(EditorStartError, match="protocol version"):
        await headless.start({"port": 0, "protocolVersion": 99})


async def test_port_in_use_is_a_clear_startup_error() -> None:
    first = HeadlessEditor()
    await first.start({"port": 0})
    try:
        assert first.url is not None
        port = int(first.url.rsplit(":", 1)[1].split("/")[0])
        second = HeadlessEditor()
        with pytest.raises(EditorStartError, match=f"Cannot listen on 127.0.0.1:{port}"):
            await second.start({"port": port})
    finally:
        await first.stop()


async def test_keepalive_during_silence_and_disconnect_cancels() -> None:
    """A model silent after its first words: the stream gets keepalive events, and a client
    leaving during the silence cancels the editor's request."""
    model = RecordingModel()
    headless = HeadlessEditor(model=model)
    await headless.start({"port": 0, "keepaliveSeconds": 0.2})
    try:
        async with aiohttp.ClientSession() as session:
            resp = await session.post(
                f"{headless.url}/responses", json={"model": "slow", "input": "hi", "stream": True}
            )
            seen = b""
            while seen.count(b"event: keepalive\n") < 2:
                seen += await asyncio.wait_for(resp.content.readany(), 10)
            assert seen.index(b"response.output_text.delta") < seen.index(b"event: keepalive")
            resp.close()
        await asyncio.wait_for(model.cancelled.wait(), 5)
    finally:
        await headless.stop()
