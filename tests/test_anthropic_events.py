"""The Anthropic dialect's answer side, unit by unit: stop sequences, events, fold, errors."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from anthropic_validation import check_stream

from bridge.anthropic.errors import anthropic_error_body, error_type
from bridge.anthropic.events import Event, MessageEventBuilder, fold_message
from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.core.editor_usage import UsageCounts
from bridge.core.errors import ApiError
from bridge.core.stop_sequences import StopSequenceCutter

# --------------------------------------------------------------------------- stop sequences


def feed_all(cutter: StopSequenceCutter, deltas: list[str]) -> str:
    out = "".join(cutter.feed(delta) for delta in deltas)
    return out + (cutter.flush() if cutter.matched is None else "")


def test_no_sequences_pass_text_through_at_once() -> None:
    cutter = StopSequenceCutter([])
    assert cutter.feed("Hello") == "Hello"
    assert cutter.matched is None and not cutter.active


def test_a_sequence_split_across_deltas_is_found() -> None:
    cutter = StopSequenceCutter(["STOP"])
    assert cutter.feed("one two ST") == "one two "  # "ST" may start STOP: held
    assert cutter.feed("O") == ""
    assert cutter.feed("P and more") == ""
    assert cutter.matched == "STOP"
    assert cutter.feed("later") == ""  # the answer ended


def test_a_held_tail_that_does_not_become_a_sequence_is_released() -> None:
    cutter = StopSequenceCutter(["STOP"])
    assert cutter.feed("a ST") == "a "
    assert cutter.feed("ART") == "START"
    assert cutter.feed("x S") == "x "
    assert cutter.flush() == "S"
    assert cutter.matched is None


def test_the_earliest_sequence_wins() -> None:
    cutter = StopSequenceCutter(["world", "lo w"])
    assert feed_all(cutter, ["hello world"]) == "hel"
    assert cutter.matched == "lo w"


def test_empty_and_repeated_sequences_are_ignored() -> None:
    cutter = StopSequenceCutter(["", "END", "END"])
    assert cutter.sequences == ["END"]
    assert feed_all(cutter, ["abc", "E", "N", "D"]) == "abc"
    assert cutter.matched == "END"


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_any_chunking_gives_the_same_text(size: int) -> None:
    text = "The answer is 42.\n\nHuman: more\n\nHuman: again"
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    cutter = StopSequenceCutter(["\n\nHuman:"])
    assert feed_all(cutter, chunks) == "The answer is 42."
    assert cutter.matched == "\n\nHuman:"


def test_parts_a_tool_call_releases_held_text_and_a_match_drops_the_rest() -> None:
    cutter = StopSequenceCutter(["##"])
    call = ToolCallPart(callId="c1", name="f", input={})
    parts: list[ResponsePart] = [TextPart(value="a #"), call, TextPart(value="b ## c"), call]
    out = cutter.cut_parts(parts)
    assert out == [TextPart(value="a "), TextPart(value="#"), call, TextPart(value="b ")]
    assert cutter.matched == "##"
    assert cutter.end_parts() == []


def test_end_parts_release_the_tail() -> None:
    cutter = StopSequenceCutter(["</done>"])
    assert cutter.cut_parts([TextPart(value="ok </do")]) == [TextPart(value="ok ")]
    assert cutter.end_parts() == [TextPart(value="</do")]


# --------------------------------------------------------------------------- events


def usage_part(payload: dict[str, Any]) -> DataPart:
    return DataPart(mimeType="usage", data=base64.b64encode(json.dumps(payload).encode()).decode())


def types(events: list[Event]) -> list[str]:
    return [event["type"] for event in events]


def run(
    builder: MessageEventBuilder, *batches: list[ResponsePart], reason: str = "end_turn"
) -> list[Event]:
    events: list[Event] = []
    for batch in batches:
        events += builder.add(batch)
    return events + builder.finish(reason, None, UsageCounts(7, 3))


def test_text_answer_events_in_order() -> None:
    builder = MessageEventBuilder("claude-test", thinking=False, input_tokens=7)
    events = run(builder, [TextPart(value="Hel")], [TextPart(value="lo")])
    assert types(events) == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0]["message"]
    assert start["id"].startswith("msg_AM-") and start["model"] == "claude-test"
    assert start["content"] == [] and start["usage"]["input_tokens"] == 7
    assert start["stop_reason"] is None
    assert events[1] == {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert events[3]["delta"] == {"type": "text_delta", "text": "lo"}
    delta = events[5]
    assert delta["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert delta["usage"]["output_tokens"] == 3 and delta["usage"]["input_tokens"] == 7


def test_thinking_block_ends_with_a_signature_then_text() -> None:
    builder = MessageEventBuilder("m", thinking=True)
    events = run(
        builder, [ThinkingPart(value="Hmm, "), ThinkingPart(value="yes.")], [TextPart(value="Yes")]
    )
    kinds = [(e["type"], e.get("delta", {}).get("type")) for e in events]
    assert kinds[1:7] == [
        ("content_block_start", None),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "thinking_delta"),
        ("content_block_delta", "signature_delta"),
        ("content_block_stop", None),
        ("content_block_start", None),
    ]
    assert events[1]["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    assert events[4]["delta"]["signature"].startswith("AM-")
    message = fold_message(events)
    assert message["content"][0]["thinking"] == "Hmm, yes."
    assert message["content"][0]["signature"] == events[4]["delta"]["signature"]
    assert message["content"][1] == {"type": "text", "text": "Yes"}


def test_thinking_is_dropped_when_not_asked_for_but_counted() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    events = run(builder, [ThinkingPart(value="secret"), TextPart(value="Hi")])
    assert [e["content_block"]["type"] for e in events if e["type"] == "content_block_start"] == [
        "text"
    ]
    assert builder.reasoning_text == ["secret"]


def test_tool_use_block_carries_the_whole_input_in_one_delta() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    call = ToolCallPart(callId="toolu_01abc", name="get_weather", input={"city": "Paris", "n": [1]})
    events = run(builder, [TextPart(value="Let me look."), call], reason="tool_use")
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert starts[1]["content_block"] == {
        "type": "tool_use",
        "id": "toolu_01abc",
        "name": "get_weather",
        "input": {},
    }
    json_deltas = [
        e["delta"] for e in events if e.get("delta", {}).get("type") == "input_json_delta"
    ]
    assert len(json_deltas) == 1
    assert json.loads(json_deltas[0]["partial_json"]) == {"city": "Paris", "n": [1]}
    message = fold_message(events)
    assert message["content"][1]["input"] == {"city": "Paris", "n": [1]}
    assert message["stop_reason"] == "tool_use"
    assert builder.tool_calls == 1


@pytest.mark.parametrize("call_id", ["", "call with spaces", "x" * 200, "ok|no"])
def test_unusable_editor_call_ids_get_an_id_of_ours(call_id: str) -> None:
    builder = MessageEventBuilder("m", thinking=False)
    events = builder.add([ToolCallPart(callId=call_id, name="f", input={})])
    assert events[1]["content_block"]["id"].startswith("toolu_AM-")


def test_a_repeated_call_id_is_replaced() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    call = ToolCallPart(callId="call_1", name="f", input={})
    events = builder.add([call, call])
    ids = [e["content_block"]["id"] for e in events if e["type"] == "content_block_start"]
    assert ids[0] == "call_1" and ids[1].startswith("toolu_AM-")


def test_usage_part_and_cache_reads() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    builder.add(
        [
            TextPart(value="x"),
            usage_part(
                {
                    "prompt_tokens": 50,
                    "completion_tokens": 4,
                    "prompt_tokens_details": {"cached_tokens": 30},
                }
            ),
        ]
    )
    assert builder.usage == UsageCounts(50, 4, 0, 30)
    events = builder.finish("end_turn", None, builder.usage)
    # Anthropic's input_tokens leave out the cache reads (the whole input is their sum).
    assert events[-2]["usage"] == {
        "input_tokens": 20,
        "output_tokens": 4,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 30,
    }


def test_ping_starts_the_message_once() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    assert types(builder.ping()) == ["message_start", "ping"]
    assert builder.ping() == [{"type": "ping"}]


def test_stop_sequence_in_message_delta_and_fold() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    events = builder.add([TextPart(value="a")]) + builder.finish(
        "stop_sequence", "##", UsageCounts(1, 1)
    )
    message = fold_message(events)
    assert message["stop_reason"] == "stop_sequence" and message["stop_sequence"] == "##"
    assert message["content"] == [{"type": "text", "text": "a"}]
    assert message["usage"]["output_tokens"] == 1


def test_failure_after_the_start_is_an_error_event() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    first = builder.add([TextPart(value="a")])
    events = builder.fail(ApiError(429, "Slow down.", type="rate_limit_error"))
    assert events == [
        {"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down."}}
    ]
    with pytest.raises(ApiError):
        fold_message(first + events)


def test_fold_of_an_empty_answer() -> None:
    builder = MessageEventBuilder("m", thinking=False)
    message = fold_message(builder.finish("end_turn", None, UsageCounts(1, 0)))
    assert message["content"] == [] and message["type"] == "message"


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, "invalid_request_error"),
        (401, "authentication_error"),
        (403, "permission_error"),
        (404, "not_found_error"),
        (413, "request_too_large"),
        (429, "rate_limit_error"),
        (500, "api_error"),
        (502, "api_error"),
        (503, "api_error"),
        (529, "overloaded_error"),
        (418, "invalid_request_error"),
        (599, "api_error"),
    ],
)
def test_error_type_follows_the_status(status: int, expected: str) -> None:
    assert error_type(status) == expected


def test_error_envelope_names_the_field() -> None:
    body = anthropic_error_body(ApiError(400, "Field required.", param="max_tokens"))
    assert body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "max_tokens: Field required."},
    }
    plain = anthropic_error_body(
        ApiError(404, "No model 'x'.", param="model", code="model_not_found")
    )
    assert plain["error"] == {"type": "not_found_error", "message": "No model 'x'."}


@pytest.mark.parametrize("thinking", [True, False])
def test_every_built_stream_passes_the_schema_and_order_rules(thinking: bool) -> None:
    builder = MessageEventBuilder("m", thinking=thinking)
    call = ToolCallPart(callId="", name="f", input={"a": "b"})
    events = builder.ping() + run(
        builder,
        [ThinkingPart(value="think")],
        [TextPart(value="one"), call, TextPart(value="two")],
        [call, usage_part({"prompt_tokens": 3, "completion_tokens": 2})],
        reason="tool_use",
    )
    result = check_stream([(event["type"], event) for event in events])
    assert result.message is not None
    folded = fold_message(events)
    assert {**folded, "id": "", "content": []} == {**result.message, "id": "", "content": []}
    assert folded["content"] == result.message["content"]


def test_omitted_thinking_keeps_the_block_and_signature_without_text() -> None:
    builder = MessageEventBuilder("m", thinking=True, omit_thinking=True)
    events = run(builder, [ThinkingPart(value="private"), TextPart(value="Hi")])
    deltas = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta"]
    assert deltas == ["signature_delta", "text_delta"]
    message = check_stream([(event["type"], event) for event in events]).message
    assert message is not None
    assert message["content"][0]["thinking"] == "" and message["content"][0]["signature"]
    assert builder.reasoning_text == ["private"]  # still counted
