"""`generate_chunks` over a scripted backend: finish reasons, stop sequences, maxOutputTokens,
keepalives, thoughts, usage and failures before and after the first chunk."""

from __future__ import annotations

import time
from typing import Any

import pytest
from scripted_backend import ScriptedBackend

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    EditorError,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.errors import ApiError
from bridge.gemini.chunks import KEEPALIVE, Chunk, fold, is_marker
from bridge.gemini.plan import GeminiPlan
from bridge.gemini.stream import finish_reason, generate_chunks


def plan(**fields: Any) -> GeminiPlan:
    options = {"max_tokens": fields.pop("max_tokens")} if "max_tokens" in fields else {}
    chat = ChatRequest(
        model="sim",
        messages=[ChatMessage(role="user", content=[TextPart(value="one two three")])],
        modelOptions=options,
    )
    return GeminiPlan(chat=chat, model=fields.pop("model", "gemini-x"), stream=True, **fields)


async def collect(backend: ScriptedBackend, the_plan: GeminiPlan, **kw: Any) -> list[Chunk]:
    chunks: list[Chunk] = []
    async for batch in generate_chunks(backend, the_plan, **kw):
        assert batch, "an empty batch would be an empty write"
        chunks += batch
    return chunks


def texts(chunks: list[Chunk]) -> str:
    return "".join(
        part.get("text", "")
        for c in chunks
        if not is_marker(c) and "candidates" in c
        for part in c["candidates"][0]["content"]["parts"]
        if not part.get("thought")
    )


def last(chunks: list[Chunk]) -> Chunk:
    real = [c for c in chunks if not is_marker(c)]
    reasons = [c["candidates"][0].get("finishReason") for c in real[:-1]]
    assert reasons == [None] * len(reasons), "only the last chunk has a finishReason"
    assert all("usageMetadata" not in c for c in real[:-1])
    return real[-1]


def test_finish_reason() -> None:
    assert finish_reason(stopped=False, cut=False, tool_calls=0) == "STOP"
    assert finish_reason(stopped=False, cut=True, tool_calls=0) == "MAX_TOKENS"
    assert finish_reason(stopped=True, cut=True, tool_calls=0) == "STOP"
    assert finish_reason(stopped=False, cut=True, tool_calls=1) == "STOP"


async def test_text_answer_ends_with_stop_and_usage() -> None:
    backend = ScriptedBackend([[TextPart(value="Hello ")], [TextPart(value="there.")]])
    chunks = await collect(backend, plan())
    assert texts(chunks) == "Hello there."
    final = last(chunks)
    assert final["candidates"][0]["finishReason"] == "STOP"
    assert final["candidates"][0]["content"]["parts"] == [{"text": "there."}]
    usage = final["usageMetadata"]
    assert usage["promptTokenCount"] > 0 and usage["candidatesTokenCount"] == 2
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + 2
    assert fold(chunks)["candidates"][0]["content"]["parts"] == [{"text": "Hello there."}]


async def test_max_output_tokens_is_max_tokens_and_cancels_the_editor() -> None:
    words: list[Any] = [[TextPart(value=f"w{i} ")] for i in range(10)]
    backend = ScriptedBackend(words)
    chunks = await collect(backend, plan(max_tokens=3))
    assert last(chunks)["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert texts(chunks) == "w0 w1 w2 "
    assert backend.closed_early


async def test_stop_sequence_is_cut_across_batches_and_is_stop() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="Count: 1, 2, EN")], [TextPart(value="D 3, 4")], [TextPart(value="x")]]
    )
    chunks = await collect(backend, plan(stop_sequences=["END"], max_tokens=5))
    assert texts(chunks) == "Count: 1, 2, "
    assert last(chunks)["candidates"][0]["finishReason"] == "STOP"
    assert backend.closed_early


async def test_held_tail_of_a_possible_stop_sequence_goes_out_at_the_end() -> None:
    backend = ScriptedBackend([[TextPart(value="ab")], [TextPart(value="cE")]])
    chunks = await collect(backend, plan(stop_sequences=["END"]))
    assert texts(chunks) == "abcE"


async def test_thoughts_only_when_asked() -> None:
    batches: list[Any] = [[ThinkingPart(value="Let me see.")], [TextPart(value="Yes.")]]
    shown = await collect(ScriptedBackend(batches), plan(include_thoughts=True))
    parts = fold(shown)["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "Let me see.", "thought": True}, {"text": "Yes."}]
    assert last(shown)["usageMetadata"]["thoughtsTokenCount"] == 3
    hidden = await collect(ScriptedBackend(batches), plan())
    assert fold(hidden)["candidates"][0]["content"]["parts"] == [{"text": "Yes."}]
    assert last(hidden)["usageMetadata"]["thoughtsTokenCount"] == 3


async def test_tool_call_answer_is_stop() -> None:
    call = ToolCallPart(callId="c1", name="get_weather", input={"city": "Paris"})
    chunks = await collect(ScriptedBackend([[TextPart(value="Let me check.")], [call]]), plan())
    final = last(chunks)
    assert final["candidates"][0]["finishReason"] == "STOP"
    assert final["candidates"][0]["content"]["parts"] == [
        {"functionCall": {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}}
    ]


async def test_silence_releases_the_held_chunk_then_sends_keepalives() -> None:
    backend = ScriptedBackend([[TextPart(value="a")], [TextPart(value="b")]], silence=0.35)
    chunks = await collect(backend, plan(), keepalive_seconds=0.1)
    first_real = next(i for i, c in enumerate(chunks) if not is_marker(c))
    assert chunks[0] == KEEPALIVE and first_real > 0
    # "a" was released by the first tick after it, not held until "b".
    assert chunks[first_real + 1] == KEEPALIVE
    assert texts(chunks) == "ab"
    assert fold(chunks)["candidates"][0]["content"]["parts"] == [{"text": "ab"}]


async def test_held_chunk_leaves_when_the_model_pauses_without_waiting_for_a_keepalive() -> None:
    # Keepalives off: the first words still go out long before the next batch comes.
    backend = ScriptedBackend([[TextPart(value="a")], [TextPart(value="b")]], silence=0.5)
    started = time.monotonic()
    seen: list[tuple[float, str]] = []
    async for batch in generate_chunks(backend, plan(), keepalive_seconds=0):
        seen += [(time.monotonic() - started, texts([c])) for c in batch]
    assert [text for _, text in seen] == ["a", "b"]  # no keepalive asked, none written
    assert seen[0][0] < 0.5 + 0.3 < seen[1][0], "the held 'a' waited for 'b'"


async def test_a_failure_before_the_first_chunk_raises() -> None:
    backend = ScriptedBackend([], error=EditorError("Blocked", "Busy."))
    with pytest.raises(ApiError) as raised:
        await collect(backend, plan())
    assert raised.value.status == 429 and raised.value.headers["Retry-After"]


async def test_a_failure_after_the_first_chunk_is_an_error_chunk() -> None:
    backend = ScriptedBackend(
        [[TextPart(value="half")], [TextPart(value=" more")]],
        error=EditorError("Other", "The editor went away."),
    )
    chunks = await collect(backend, plan())
    assert chunks[-1] == {
        "error": {"code": 502, "message": "The editor went away.", "status": "UNAVAILABLE"}
    }
    assert texts(chunks[:-1]) == "half more"  # the held chunk went out before the error
    with pytest.raises(ApiError):
        await collect(
            ScriptedBackend([[TextPart(value="x")]], error=EditorError("Other", "gone")),
            plan(),
            raise_failures=True,
        )
