"""`completion_chunks` over a scripted backend: stop sequences, max_tokens, parallel tool calls,
keepalives, usage, structured-output checks and failures before and after the first chunk."""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest
from scripted_backend import ScriptedBackend

from bridge.chat.chunks import DONE, KEEPALIVE, Chunk, fold_completion, is_marker
from bridge.chat.plan import CompletionPlan
from bridge.chat.stream import completion_chunks, finish_reason, first_tool_call_only
from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    DataPart,
    EditorError,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.errors import ApiError
from bridge.core.structured_output import OutputFormat


def usage_data(**counts: int) -> str:
    return base64.b64encode(json.dumps(counts).encode()).decode()


def plan(**fields: Any) -> CompletionPlan:
    options = {"max_tokens": fields.pop("max_tokens")} if "max_tokens" in fields else {}
    chat = ChatRequest(
        model="sim",
        messages=[ChatMessage(role="user", content=[TextPart(value="one two three")])],
        modelOptions=options,
    )
    return CompletionPlan(chat=chat, model=fields.pop("model", "gpt-x"), **fields)


async def collect(backend: ScriptedBackend, the_plan: CompletionPlan, **kw: Any) -> list[Chunk]:
    chunks: list[Chunk] = []
    async for batch in completion_chunks(backend, the_plan, **kw):
        assert batch, "an empty batch would be an empty write"
        chunks += batch
    return chunks


def content_of(chunks: list[Chunk]) -> str:
    return "".join(
        c["choices"][0]["delta"].get("content") or ""
        for c in chunks
        if not is_marker(c) and "choices" in c and c["choices"]
    )


def finish_of(chunks: list[Chunk]) -> str | None:
    reasons = [
        c["choices"][0]["finish_reason"]
        for c in chunks
        if not is_marker(c) and "choices" in c and c["choices"]
    ]
    assert all(r is None for r in reasons[:-1])
    last: str | None = reasons[-1]
    return last


def usage_of(chunks: list[Chunk]) -> dict[str, Any]:
    last = [c for c in chunks if not is_marker(c)][-1]
    assert last["choices"] == []
    usage: dict[str, Any] = last["usage"]
    return usage


async def test_text_answer_ends_with_stop_usage_and_done() -> None:
    backend = ScriptedBackend([[TextPart(value="Hello ")], [TextPart(value="there.")]])
    chunks = await collect(backend, plan(stream=True, include_usage=True))
    assert chunks[-1] == DONE and chunks.count(DONE) == 1
    assert content_of(chunks) == "Hello there."
    assert finish_of(chunks) == "stop"
    usage = usage_of(chunks)  # no usage part from the editor: counted with its tokenizer
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] == 2
    assert usage["total_tokens"] == usage["prompt_tokens"] + 2


async def test_stream_without_include_usage_has_no_usage_chunk() -> None:
    chunks = await collect(ScriptedBackend([[TextPart(value="Hi")]]), plan(stream=True))
    assert all("usage" not in c for c in chunks)
    assert finish_of(chunks) == "stop"


async def test_the_non_streaming_answer_always_has_usage() -> None:
    backend = ScriptedBackend([[ThinkingPart(value="Let me see."), TextPart(value="Hi")]])
    completion = fold_completion(await collect(backend, plan(stream=False)))
    assert completion["usage"]["completion_tokens_details"]["reasoning_tokens"] == 3
    assert completion["usage"]["completion_tokens"] == 4
    message = completion["choices"][0]["message"]
    assert message["content"] == "Hi" and message["reasoning_content"] == "Let me see."


async def test_a_stop_sequence_straddling_two_parts_cuts_and_ends_the_request() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="one two EN")], [TextPart(value="D three")], [TextPart(value="four")]]
    )
    chunks = await collect(backend, plan(stream=True, stop_sequences=["END"]))
    assert content_of(chunks) == "one two "
    assert finish_of(chunks) == "stop"
    assert backend.closed_early and backend.yielded < 3


async def test_held_text_of_a_possible_stop_sequence_goes_out_at_the_end() -> None:
    backend = ScriptedBackend([[TextPart(value="ends with E")]])
    chunks = await collect(backend, plan(stream=True, stop_sequences=["END"]))
    assert content_of(chunks) == "ends with E" and finish_of(chunks) == "stop"


def test_finish_reason_priorities() -> None:
    assert finish_reason(stopped=True, cut=True, tool_calls=1) == "tool_calls"
    assert finish_reason(stopped=True, cut=True, tool_calls=0) == "stop"
    assert finish_reason(stopped=False, cut=True, tool_calls=0) == "length"
    assert finish_reason(stopped=False, cut=False, tool_calls=0) == "stop"


async def test_a_stop_sequence_at_the_output_limit_is_still_stop() -> None:
    # The editor's own count says the answer used all 3 tokens; the stop sequence came too.
    usage = DataPart(mimeType="usage", data=usage_data(prompt_tokens=3, completion_tokens=3))
    backend = ScriptedBackend([[usage, TextPart(value="a END")]])
    chunks = await collect(backend, plan(stream=True, stop_sequences=["END"], max_tokens=3))
    assert content_of(chunks) == "a " and finish_of(chunks) == "stop"


async def test_max_tokens_cut_is_length() -> None:
    backend = ScriptedBackend([[TextPart(value="a b c d e f g h i j")]])
    chunks = await collect(backend, plan(stream=True, include_usage=True, max_tokens=3))
    assert finish_of(chunks) == "length"
    assert usage_of(chunks)["completion_tokens"] <= 3


def calls_of(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [
        call
        for c in chunks
        if not is_marker(c) and c.get("choices")
        for call in c["choices"][0]["delta"].get("tool_calls", [])
    ]


TWO_CALLS: list[ResponsePart] = [
    TextPart(value="Calling."),
    ToolCallPart(callId="call_1", name="first", input={"n": 1}),
    TextPart(value="And more."),
    ToolCallPart(callId="call_2", name="second", input={"n": 2}),
]


async def test_parallel_tool_calls_all_go_out_with_their_indexes() -> None:
    chunks = await collect(ScriptedBackend([TWO_CALLS]), plan(stream=True))
    assert [(c["index"], c["function"]["name"]) for c in calls_of(chunks)] == [
        (0, "first"),
        (1, "second"),
    ]
    assert finish_of(chunks) == "tool_calls"


async def test_no_parallel_tool_calls_ends_after_the_first_call() -> None:
    backend = ScriptedBackend([TWO_CALLS, [TextPart(value="never sent")]])
    chunks = await collect(backend, plan(stream=True, parallel_tool_calls=False))
    assert [c["function"]["name"] for c in calls_of(chunks)] == ["first"]
    assert content_of(chunks) == "Calling."
    assert finish_of(chunks) == "tool_calls"
    assert backend.closed_early


def test_first_tool_call_only() -> None:
    assert first_tool_call_only(TWO_CALLS, 0) == TWO_CALLS[:2]
    assert first_tool_call_only(TWO_CALLS, 1) == []
    assert first_tool_call_only([TextPart(value="x")], 0) == [TextPart(value="x")]


async def test_keepalive_markers_while_the_model_is_silent() -> None:
    backend = ScriptedBackend([[TextPart(value="late")]], silence=0.35)
    chunks = await collect(backend, plan(stream=True), keepalive_seconds=0.1)
    assert chunks.count(KEEPALIVE) >= 2
    assert chunks.index(KEEPALIVE) == 0  # before anything else: the model is silent
    assert content_of(chunks) == "late" and chunks[-1] == DONE


async def test_a_failure_before_the_first_chunk_raises_with_its_status() -> None:
    backend = ScriptedBackend([], error=EditorError("Blocked", "Rate limited."))
    with pytest.raises(ApiError) as raised:
        await collect(backend, plan(stream=True))
    assert raised.value.status == 429 and raised.value.headers["Retry-After"]


async def test_a_usage_only_batch_sends_nothing_so_a_failure_is_still_a_status() -> None:
    usage = DataPart(mimeType="usage", data="e30=")  # "{}": ignored
    backend = ScriptedBackend([[usage]], error=EditorError("NoPermissions", "No."))
    with pytest.raises(ApiError) as raised:
        await collect(backend, plan(stream=True))
    assert raised.value.status == 403


async def test_a_failure_after_the_first_chunk_ends_with_one_error_chunk() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="partial")]], error=EditorError("Unavailable", "The editor left.")
    )
    chunks = await collect(backend, plan(stream=True, include_usage=True))
    assert content_of(chunks) == "partial"
    assert chunks[-1] == {
        "error": {
            "message": "The editor left.",
            "type": "server_error",
            "param": None,
            "code": "editor_unavailable",
        }
    }
    assert DONE not in chunks


async def test_raise_failures_raises_a_later_failure_too() -> None:
    backend = ScriptedBackend([[TextPart(value="partial")]], error=EditorError("Other", "Broke."))
    with pytest.raises(ApiError) as raised:
        await collect(backend, plan(stream=False), raise_failures=True)
    assert raised.value.status == 502 and raised.value.message == "Broke."


async def test_structured_output_is_checked_and_a_mismatch_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    schema = {"type": "object", "required": ["city"]}
    fmt = OutputFormat("json_schema", name="place", schema=schema)
    backend = ScriptedBackend([[TextPart(value='{"town": "Lyon"}')]])
    with caplog.at_level(logging.WARNING):
        chunks = await collect(backend, plan(stream=True, output_format=fmt))
    assert content_of(chunks) == '{"town": "Lyon"}'  # the model's answer, as it wrote it
    assert "Structured output 'place'" in caplog.text and "`required`" in caplog.text
    caplog.clear()
    good = ScriptedBackend([[TextPart(value='{"city": "Lyon"}')]])
    with caplog.at_level(logging.WARNING):
        await collect(good, plan(stream=True, output_format=fmt))
    assert "Structured output" not in caplog.text


async def test_closing_the_stream_early_cancels_the_editor_request() -> None:
    backend = ScriptedBackend([[TextPart(value=f"{n} ")] for n in range(20)])
    stream = completion_chunks(backend, plan(stream=True))
    first = await anext(stream)
    await stream.aclose()
    assert content_of(first) == "0 "
    assert backend.closed_early and backend.yielded < 20
