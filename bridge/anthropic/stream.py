"""From a Messages request body to the stream of Messages events: plan, ask the editor, translate.

`message_events` is the single data path: the HTTP layer writes its batches as SSE or folds them
into one Message (`fold_message`). Around the parts, what every dialect shares (core/answer.py):
keepalive ticks become `ping` events, the output cut at `max_tokens` ends the message with
`stop_reason: "max_tokens"`, a failure before the first event raises (an HTTP status), after it
the stream ends with an `error` event. Stop sequences are cut here (core/stop_sequences.py), and
finding one ends the editor's request as the output cut does.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator

from bridge.anthropic.events import Event, MessageEventBuilder
from bridge.anthropic.plan import MessagesPlan
from bridge.core.answer import EditorAnswer, estimate_usage, guarded
from bridge.core.backend import Backend, ChatRequest, EditorError
from bridge.core.stop_sequences import StopSequenceCutter
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, check_answer
from bridge.core.token_limits import chat_input_tokens

log = logging.getLogger(__name__)


async def _input_count(backend: Backend, chat: ChatRequest) -> int:
    """For a `message_start` sent at the end: the editor's count, else one made now (0 when
    the editor cannot count)."""
    try:
        return await chat_input_tokens(backend, chat)
    except EditorError:
        log.warning("The editor could not count the input tokens; message_start says 0")
        return 0


def stop_reason(cutter: StopSequenceCutter, cut: bool, tool_calls: int) -> str:
    if cutter.matched is not None:
        return "stop_sequence"
    if cut:
        return "max_tokens"
    return "tool_use" if tool_calls else "end_turn"


def message_events(
    backend: Backend,
    plan: MessagesPlan,
    keepalive_seconds: float = 0,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
    *,
    raise_failures: bool = False,
) -> AsyncGenerator[list[Event], None]:
    """Batches of events; closing this iterator early cancels the editor's request.

    Nothing is yielded before the editor's first part or first keepalive. `raise_failures`
    (the non-streaming answer) raises a later failure too instead of an `error` event."""
    builder = MessageEventBuilder(plan.model, plan.thinking, omit_thinking=plan.thinking_omitted)
    if plan.chat.webSearch is not None:
        builder.searched = 0  # the usage says how many searches ran, none included

    batches = _message_batches(backend, plan, builder, keepalive_seconds, check_seconds)
    return guarded(batches, builder.fail, raise_failures=raise_failures)


async def _message_batches(
    backend: Backend,
    plan: MessagesPlan,
    builder: MessageEventBuilder,
    keepalive_seconds: float,
    check_seconds: float,
) -> AsyncGenerator[list[Event], None]:
    # The editor counts the input as the chat starts (`countInput`, asked in prepare.py) and
    # tells the count before its first part: message_start states it (0 if it could not).
    chat = plan.chat
    answer = EditorAnswer(backend, chat, keepalive_seconds)
    cutter = StopSequenceCutter(plan.stop_sequences)
    async with contextlib.aclosing(answer.batches()) as parts_batches:
        async for parts in parts_batches:
            if parts is not None and not parts:
                continue
            events = [] if builder.started else builder.start(chat.counted_input or 0)
            if parts is None:
                events += builder.ping()
            else:
                events += builder.add(cutter.cut_parts(parts))
            yield events
            if cutter.matched is not None:
                break  # closing the chat cancels the editor's request
    tail = [] if builder.started else builder.start(await _input_count(backend, chat))
    tail += builder.add(cutter.end_parts())
    usage = builder.usage or await estimate_usage(
        backend, chat, "".join(builder.output_text), "".join(builder.reasoning_text)
    )
    reason = stop_reason(cutter, answer.cut(usage.output_tokens), builder.tool_calls)
    refusal = None
    if answer.filtered:  # Copilot's content filter: Anthropic's streaming refusal
        reason, refusal = "refusal", answer.filter_message
    events = tail + builder.finish(reason, cutter.matched, usage, refusal)
    answer_text = "".join(builder.answer_text)
    if plan.output_format is not None and answer_text and reason == "end_turn":
        await check_answer(plan.output_format, answer_text, check_seconds)  # never raises
    yield events
