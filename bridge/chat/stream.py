"""From a CompletionPlan to the stream of `chat.completion.chunk`s: ask the editor, translate.

`completion_chunks` is the single data path: the HTTP layer writes its batches as SSE or folds
them into one `chat.completion` (`fold_completion`). Around the parts, what every dialect shares
(core/answer.py): keepalive ticks become SSE comments, the output cut at `max_tokens` ends the
answer with `finish_reason: "length"`, a failure before the first chunk raises (an HTTP status),
after it the stream ends with an error chunk. Stop sequences are cut here
(core/stop_sequences.py), and with `parallel_tool_calls: false` the answer ends after its first
tool call: either ends the editor's request as the output cut does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator

from bridge.chat.chunks import KEEPALIVE, Chunk, ChunkBuilder
from bridge.chat.plan import CompletionPlan
from bridge.core.answer import EditorAnswer, estimate_usage, guarded
from bridge.core.backend import Backend, ResponsePart, ToolCallPart
from bridge.core.stop_sequences import StopSequenceCutter
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, check_answer


def finish_reason(stopped: bool, cut: bool, tool_calls: int) -> str:
    """Tool calls first: the editor gives them whole, so the client can run them even when the
    answer was cut after them. A stop sequence found is `stop` (as OpenAI's), even when the
    text before it happened to reach max_tokens."""
    if tool_calls:
        return "tool_calls"
    if stopped:
        return "stop"
    return "length" if cut else "stop"


def first_tool_call_only(parts: list[ResponsePart], calls_so_far: int) -> list[ResponsePart]:
    """`parallel_tool_calls: false`: the parts up to and with the answer's first tool call."""
    if calls_so_far:
        return []
    for at, part in enumerate(parts):
        if isinstance(part, ToolCallPart):
            return parts[: at + 1]
    return parts


def completion_chunks(
    backend: Backend,
    plan: CompletionPlan,
    keepalive_seconds: float = 0,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
    *,
    raise_failures: bool = False,
) -> AsyncGenerator[list[Chunk], None]:
    """Batches of chunks; closing this iterator early cancels the editor's request.

    Nothing is yielded before the editor's first part or first keepalive. `raise_failures`
    (the non-streaming answer) raises a later failure too instead of an error chunk. The
    non-streaming answer always gets its usage chunk (the fold reads the usage from it)."""
    builder = ChunkBuilder(plan.model, include_usage=plan.include_usage or not plan.stream)

    batches = _chunk_batches(backend, plan, builder, keepalive_seconds, check_seconds)
    return guarded(batches, builder.fail, raise_failures=raise_failures)


async def _chunk_batches(
    backend: Backend,
    plan: CompletionPlan,
    builder: ChunkBuilder,
    keepalive_seconds: float,
    check_seconds: float,
) -> AsyncGenerator[list[Chunk], None]:
    answer = EditorAnswer(backend, plan.chat, keepalive_seconds)
    cutter = StopSequenceCutter(plan.stop_sequences)
    async with contextlib.aclosing(answer.batches()) as parts_batches:
        async for parts in parts_batches:
            if parts is None:
                yield [KEEPALIVE]
                continue
            parts = cutter.cut_parts(parts)
            if not plan.parallel_tool_calls:
                parts = first_tool_call_only(parts, builder.tool_calls)
            chunks = builder.add(parts)
            if chunks:
                yield chunks
            if cutter.matched is not None or (not plan.parallel_tool_calls and builder.tool_calls):
                break  # closing the chat cancels the editor's request
    tail = builder.add(cutter.end_parts())
    usage = builder.usage or await estimate_usage(
        backend,
        plan.chat,
        "".join(builder.output_text),
        "".join(builder.reasoning_text),
    )
    stopped = cutter.matched is not None
    reason = finish_reason(stopped, answer.cut(usage.output_tokens), builder.tool_calls)
    if answer.filtered:  # Copilot's content filter ended the answer after it began
        reason = "content_filter"
    answer_text = "".join(builder.answer_text)
    if plan.output_format is not None and answer_text and reason == "stop":
        await check_answer(plan.output_format, answer_text, check_seconds)  # never raises
    yield tail + builder.finish(reason, usage)
