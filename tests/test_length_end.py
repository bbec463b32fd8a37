"""Copilot 0.67 ends a length-limited answer without an error and without the usage part it
sends after every other answer (bridge/core/copilot/length_end.py). For a model of Copilot's
vendor the bridge reads a missing usage part as a length end in every dialect (`length`,
`max_tokens`, `MAX_TOKENS`, `incomplete`); for other vendors, whose providers may never report
usage, it does not; a `stateful_marker` data part reaches no client."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from scripted_backend import ScriptedBackend

from bridge.anthropic.plan import MessagesPlan
from bridge.anthropic.stream import message_events
from bridge.chat.chunks import is_marker
from bridge.chat.plan import CompletionPlan
from bridge.chat.stream import completion_chunks
from bridge.core.backend import ChatMessage, ChatRequest, DataPart, ModelInfo, TextPart
from bridge.core.token_limits import count_input_asked
from bridge.gemini.plan import GeminiPlan
from bridge.gemini.stream import generate_chunks
from bridge.responses.request import parse_create_request
from bridge.responses.responder import plan_response, response_events

MODEL = ModelInfo(id="sim", vendor="copilot", maxInputTokens=1000, maxOutputTokens=50)
OTHER = ModelInfo(id="sim", vendor="someone-else", maxInputTokens=1000, maxOutputTokens=50)


class LimitedBackend(ScriptedBackend):
    """One model, Copilot's unless told otherwise."""

    def __init__(self, parts: list[list[Any]], model: ModelInfo = MODEL) -> None:
        super().__init__(parts)
        self.model = model

    async def list_models(self) -> list[ModelInfo]:
        return [self.model]


def _data(mime: str, payload: str) -> DataPart:
    return DataPart(mimeType=mime, data=base64.b64encode(payload.encode()).decode())


def answer(usage: bool, model: ModelInfo = MODEL) -> LimitedBackend:
    """ "Hello there", a stateful marker, and the usage part when `usage` (the normal end)."""
    marker = _data("stateful_marker", "sim\\resp_0123456789")
    ending = [marker]
    if usage:
        ending.append(_data("usage", json.dumps({"prompt_tokens": 3, "completion_tokens": 2})))
    return LimitedBackend([[TextPart(value="Hello there")], ending], model)


def _chat(options: dict[str, Any]) -> ChatRequest:
    chat = ChatRequest(
        model="sim",
        messages=[ChatMessage(role="user", content=[TextPart(value="one two three")])],
        modelOptions=options,
    )
    count_input_asked(chat)
    return chat


async def chat_end(backend: LimitedBackend, options: dict[str, Any]) -> tuple[str, str]:
    the_plan = CompletionPlan(chat=_chat(options), model="gpt-x", stream=True)
    chunks = [c async for batch in completion_chunks(backend, the_plan) for c in batch]
    real = [c for c in chunks if not is_marker(c) and c.get("choices")]
    reasons = [c["choices"][0]["finish_reason"] for c in real if c["choices"][0]["finish_reason"]]
    return reasons[-1], json.dumps(real)


async def messages_end(backend: LimitedBackend, options: dict[str, Any]) -> tuple[str, str]:
    the_plan = MessagesPlan(chat=_chat(options), model="claude-x", stream=True)
    events = [e async for batch in message_events(backend, the_plan) for e in batch]
    return events[-2]["delta"]["stop_reason"], json.dumps(events)


async def gemini_end(backend: LimitedBackend, options: dict[str, Any]) -> tuple[str, str]:
    the_plan = GeminiPlan(chat=_chat(options), model="gemini-x", stream=True)
    chunks = [c async for batch in generate_chunks(backend, the_plan) for c in batch]
    real = [c for c in chunks if not is_marker(c) and "candidates" in c]
    return real[-1]["candidates"][0]["finishReason"], json.dumps(real)


async def responses_end(backend: LimitedBackend, options: dict[str, Any]) -> tuple[str, str]:
    body: dict[str, Any] = {"model": "sim", "input": "one two three", "stream": True}
    if "max_tokens" in options:
        body["max_output_tokens"] = options["max_tokens"]
    the_plan = plan_response(parse_create_request(body), MODEL)
    events = [e async for batch in response_events(backend, the_plan) for e in batch]
    final = events[-1]
    if final["type"] == "response.incomplete":
        return final["response"]["incomplete_details"]["reason"], json.dumps(events)
    return final["type"], json.dumps(events)


Dialect = Callable[[LimitedBackend, dict[str, Any]], Coroutine[Any, Any, tuple[str, str]]]
# Each dialect's length end, and its normal end.
IDS = ["chat", "messages", "gemini", "responses"]
DIALECTS: list[tuple[Dialect, str, str]] = [
    (chat_end, "length", "stop"),
    (messages_end, "max_tokens", "end_turn"),
    (gemini_end, "MAX_TOKENS", "STOP"),
    (responses_end, "max_output_tokens", "response.completed"),
]


@pytest.mark.parametrize(("end", "length", "normal"), DIALECTS, ids=IDS)
async def test_no_usage_part_from_copilot_is_a_length_end(
    end: Dialect, length: str, normal: str
) -> None:
    reason, wire = await end(answer(usage=False), {})
    assert reason == length
    assert "Hello" in wire  # the partial text went out
    assert (await end(answer(usage=True), {}))[0] == normal
    assert (await end(answer(usage=True), {"max_tokens": 200}))[0] == normal


@pytest.mark.parametrize(("end", "length", "normal"), DIALECTS, ids=IDS)
async def test_no_usage_part_from_another_vendor_is_a_normal_end(
    end: Dialect, length: str, normal: str
) -> None:
    assert (await end(answer(usage=False, model=OTHER), {}))[0] == normal


@pytest.mark.parametrize(("end", "length", "normal"), DIALECTS, ids=IDS)
async def test_a_stateful_marker_reaches_no_client(end: Dialect, length: str, normal: str) -> None:
    reason, wire = await end(answer(usage=True), {})
    assert reason == normal
    assert "Hello" in wire  # the text went out (in parts, in some dialects)
    assert "resp_0123456789" not in wire and "stateful_marker" not in wire


async def test_a_required_call_cut_at_the_limit_is_a_length_end() -> None:
    # Text cut at the limit and no call: asking again would be cut the same way.
    chat = _chat({"max_tokens": 20}).model_copy(update={"toolCallRequired": True})
    backend = answer(usage=False)
    chunks = [
        c
        async for batch in completion_chunks(
            backend, CompletionPlan(chat=chat, model="gpt-x", stream=True)
        )
        for c in batch
    ]
    real = [c for c in chunks if not is_marker(c) and c.get("choices")]
    assert real[-1]["choices"][0]["finish_reason"] == "length"
    assert backend.yielded == 2  # asked once
