"""From a GeminiPlan to the stream of `GenerateContentResponse` chunks: ask the editor, translate.

`generate_chunks` is the single data path: the HTTP layer writes its batches as SSE (or a JSON
array) or folds them into one answer (`fold`). Around the parts, what every dialect shares
(core/answer.py): the chunk held back for the finish (chunks.py) leaves once the model has been
silent for `FLUSH_SECONDS` (holding it never delays text the client could show), a longer
silence becomes a blank line every `keepalive_seconds`, the output cut at `maxOutputTokens`
ends the answer with `MAX_TOKENS`, a failure before the first chunk raises (an HTTP status),
after it the stream ends with an error chunk. Stop sequences are cut here
(core/stop_sequences.py): a sequence found ends the answer with `STOP`, and the editor's
request with it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncGenerator

from bridge.core.answer import EditorAnswer, estimate_usage, guarded
from bridge.core.backend import Backend
from bridge.core.stop_sequences import StopSequenceCutter
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, check_answer
from bridge.gemini.chunks import KEEPALIVE, MAX_TOKENS, SAFETY, STOP, Chunk, ChunkBuilder
from bridge.gemini.plan import GeminiPlan

# How long a streamed chunk waits for the next batch before it leaves without the finish.
FLUSH_SECONDS = 0.02


def finish_reason(stopped: bool, cut: bool, tool_calls: int) -> str:
    """Tool calls and a stop sequence found are `STOP` (the calls are whole, the client can run
    them); only an answer cut at the output limit is `MAX_TOKENS`."""
    if tool_calls or stopped:
        return STOP
    return MAX_TOKENS if cut else STOP


def generate_chunks(
    backend: Backend,
    plan: GeminiPlan,
    keepalive_seconds: float = 0,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
    *,
    raise_failures: bool = False,
) -> AsyncGenerator[list[Chunk], None]:
    """Batches of chunks; closing this iterator early cancels the editor's request.

    Nothing is yielded before the editor's first part or first keepalive. `raise_failures`
    (the non-streaming answer) raises a later failure too instead of an error chunk."""
    builder = ChunkBuilder(plan.model, include_thoughts=plan.include_thoughts)

    batches = _chunk_batches(backend, plan, builder, keepalive_seconds, check_seconds)
    return guarded(batches, builder.fail, raise_failures=raise_failures)


async def _chunk_batches(
    backend: Backend,
    plan: GeminiPlan,
    builder: ChunkBuilder,
    keepalive_seconds: float,
    check_seconds: float,
) -> AsyncGenerator[list[Chunk], None]:
    # Streams tick often, to release the held chunk; a folded answer holds nothing back.
    tick = FLUSH_SECONDS if plan.stream else keepalive_seconds
    answer = EditorAnswer(backend, plan.chat, tick)
    cutter = StopSequenceCutter(plan.stop_sequences)
    last_sent = time.monotonic()
    began = False  # the answer has output, or a keepalive went out (ticks alone do not)
    async with contextlib.aclosing(answer.batches()) as parts_batches:
        async for parts in parts_batches:
            if parts is None:
                now = time.monotonic()
                released = builder.release()
                if released:
                    yield released
                elif 0 < keepalive_seconds <= now - last_sent:
                    yield [KEEPALIVE]
                else:
                    continue
                began, last_sent = True, now
                continue
            last_sent = time.monotonic()
            began = began or bool(parts)
            chunks = builder.add(cutter.cut_parts(parts))
            if chunks:
                yield chunks
            if cutter.matched is not None:
                break  # closing the chat cancels the editor's request
    tail = builder.add(cutter.end_parts())  # the held tail goes out with the finish
    usage = builder.usage or await estimate_usage(
        backend,
        plan.chat,
        "".join(builder.output_text),
        "".join(builder.reasoning_text),
    )
    stopped = cutter.matched is not None
    reason = finish_reason(stopped, answer.cut(usage.output_tokens), builder.tool_calls)
    if answer.filtered:  # Copilot's content filter ended the answer
        if not began:  # only flush ticks so far: the HTTP status is still ours
            raise answer.filter_error()
        reason = SAFETY
    answer_text = "".join(builder.answer_text)
    if plan.output_format is not None and answer_text and reason == STOP:
        await check_answer(plan.output_format, answer_text, check_seconds)  # never raises
    yield tail + builder.finish(reason, usage)
