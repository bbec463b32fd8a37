"""`message_events` over a scripted backend: stop sequences, max_tokens, pings, failures."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic_validation import check_stream
from scripted_backend import ScriptedBackend

from bridge.anthropic.events import Event, fold_message
from bridge.anthropic.plan import MessagesPlan
from bridge.anthropic.stream import message_events
from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    EditorError,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from bridge.core.errors import ApiError
from bridge.core.token_limits import count_input_asked


def plan(**fields: Any) -> MessagesPlan:
    options = {"max_tokens": fields.pop("max_tokens")} if "max_tokens" in fields else {}
    chat = ChatRequest(
        model="sim",
        messages=[ChatMessage(role="user", content=[TextPart(value="one two three")])],
        modelOptions=options,
    )
    count_input_asked(chat)  # as prepare.py asks, for message_start
    return MessagesPlan(chat=chat, model="claude-x", stream=True, **fields)


async def collect(backend: ScriptedBackend, the_plan: MessagesPlan, **kw: Any) -> list[Event]:
    """The events, checked against the Messages API's schema and stream order as they end."""
    events: list[Event] = []
    async for batch in message_events(backend, the_plan, **kw):
        events += batch
    check_stream([(event["type"], event) for event in events])
    return events


def text_of(events: list[Event]) -> str:
    return "".join(e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta")


async def test_text_answer_counts_input_for_message_start() -> None:
    backend = ScriptedBackend([[TextPart(value="Hello ")], [TextPart(value="there")]])
    events = await collect(backend, plan())
    assert events[0]["type"] == "message_start"
    assert events[0]["message"]["usage"]["input_tokens"] == 3
    assert events[-1] == {"type": "message_stop"}
    assert events[-2]["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert events[-2]["usage"]["output_tokens"] == 2
    assert text_of(events) == "Hello there"


async def test_a_stop_sequence_ends_the_answer_and_cancels_the_editor() -> None:
    batches: list[list[ResponsePart]] = [
        [TextPart(value="alpha EN")],
        [TextPart(value="D beta")],
        [TextPart(value="never sent")],
    ]
    backend = ScriptedBackend(batches)
    events = await collect(backend, plan(stop_sequences=["END"]))
    assert text_of(events) == "alpha "
    assert events[-2]["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}
    assert backend.closed_early and backend.yielded == 1


async def test_a_held_tail_goes_out_at_the_end() -> None:
    backend = ScriptedBackend([[TextPart(value="wait <")]])
    events = await collect(backend, plan(stop_sequences=["<stop>"]))
    assert text_of(events) == "wait <"
    assert events[-2]["delta"]["stop_reason"] == "end_turn"


async def test_output_cut_is_max_tokens() -> None:
    backend = ScriptedBackend([[TextPart(value="a b c ")], [TextPart(value="d e f g h")]])
    events = await collect(backend, plan(max_tokens=4))
    assert events[-2]["delta"]["stop_reason"] == "max_tokens"
    assert text_of(events).split() == ["a", "b", "c", "d"]


async def test_tool_use_stop_reason_and_thinking() -> None:
    call = ToolCallPart(callId="c1", name="f", input={"x": 1})
    backend = ScriptedBackend([[ThinkingPart(value="plan")], [TextPart(value="ok"), call]])
    events = await collect(backend, plan(thinking=True))
    message = fold_message(events)
    assert [block["type"] for block in message["content"]] == ["thinking", "text", "tool_use"]
    assert message["stop_reason"] == "tool_use"
    assert message["content"][2]["input"] == {"x": 1}


async def test_pings_while_the_model_is_silent() -> None:
    backend = ScriptedBackend([[TextPart(value="late")]], silence=0.25)
    events = await collect(backend, plan(), keepalive_seconds=0.1)
    assert [e["type"] for e in events[:2]] == ["message_start", "ping"]
    assert fold_message(events)["content"] == [{"type": "text", "text": "late"}]


async def test_failure_before_the_first_event_raises() -> None:
    backend = ScriptedBackend([], error=EditorError("Blocked", "Rate limited."))
    with pytest.raises(ApiError) as caught:
        await collect(backend, plan())
    assert caught.value.status == 429


async def test_failure_after_the_first_event_is_an_error_event() -> None:
    backend = ScriptedBackend([[TextPart(value="a")]], error=EditorError("Other", "Broke."))
    events = await collect(backend, plan())
    assert events[-1] == {"type": "error", "error": {"type": "api_error", "message": "Broke."}}
    assert "message_stop" not in [e["type"] for e in events]


async def test_failure_without_streaming_raises_its_status() -> None:
    backend = ScriptedBackend([[TextPart(value="a")]], error=EditorError("Timeout", "Slow."))
    with pytest.raises(ApiError) as caught:
        await collect(backend, plan(), raise_failures=True)
    assert caught.value.status == 504


async def test_without_the_editors_count_message_start_says_0_and_the_end_counts() -> None:
    backend = ScriptedBackend([[TextPart(value="quick")]])
    the_plan = plan()
    the_plan.chat.countInput = None  # an editor that could not count as the chat started
    events = await collect(backend, the_plan)
    assert events[0]["message"]["usage"]["input_tokens"] == 0
    assert events[-2]["usage"]["input_tokens"] == 3  # counted by the end
    assert len(backend.counted) == 2  # the input, then the output
