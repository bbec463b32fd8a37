"""Tests for the Open Responses spec validator in tests/spec_validation.py.

The objects here are hand-built to the letter of the spec (2026-04-24) and the event sequences it
describes (its required fields per object and event), so they also document what the bridge is
expected to emit.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from spec_validation import (
    parse_sse,
    spec_path,
    validate_event,
    validate_response,
    validate_stream,
)

RESP_ID = "resp_0123456789abcdef"
MSG_ID = "msg_0123456789abcdef"
FC_ID = "fc_0123456789abcdef"
CALL_ID = "call_0123456789abcdef"
CTC_ID = "ctc_0123456789abcdef"

# --------------------------------------------------------------------------- builders


def make_response(**overrides: Any) -> dict[str, Any]:
    """A completed ResponseResource with every required key; nullable ones are explicit nulls."""
    response: dict[str, Any] = {
        "id": RESP_ID,
        "object": "response",
        "created_at": 1_760_000_000,
        "completed_at": 1_760_000_002,
        "status": "completed",
        "incomplete_details": None,
        "model": "copilot/gpt-4o",
        "previous_response_id": None,
        "instructions": None,
        "output": [],
        "error": None,
        "tools": [],
        "tool_choice": "auto",
        "truncation": "disabled",
        "parallel_tool_calls": True,
        "text": {"format": {"type": "text"}},
        "top_p": 1.0,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "top_logprobs": 0,
        "temperature": 1.0,
        "reasoning": None,
        "usage": {
            "input_tokens": 12,
            "output_tokens": 3,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
        "max_output_tokens": None,
        "max_tool_calls": None,
        "store": False,
        "background": False,
        "service_tier": "default",
        "metadata": {},
        "safety_identifier": None,
        "prompt_cache_key": None,
    }
    response.update(overrides)
    return response


def in_progress(response: dict[str, Any]) -> dict[str, Any]:
    """The snapshot sent in response.created / response.in_progress."""
    return {**response, "status": "in_progress", "completed_at": None, "output": [], "usage": None}


def output_text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(text: str, status: str = "completed") -> dict[str, Any]:
    content = [output_text_part(text)] if status == "completed" else []
    return {
        "type": "message",
        "id": MSG_ID,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def function_call_item(arguments: str, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": FC_ID,
        "call_id": CALL_ID,
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


def custom_tool_call_item(patch: str, status: str = "completed") -> dict[str, Any]:
    return {
        "type": "custom_tool_call",
        "id": CTC_ID,
        "call_id": CALL_ID,
        "name": "apply_patch",
        "input": patch,
        "status": status,
    }


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "sequence_number": i} for i, event in enumerate(events)]


def lifecycle(final: dict[str, Any], body: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """created, in_progress, `body`, completed: the frame every stream shares."""
    return numbered(
        [
            {"type": "response.created", "response": in_progress(final)},
            {"type": "response.in_progress", "response": in_progress(final)},
            *body,
            {"type": "response.completed", "response": final},
        ]
    )


def ev(event_type: str, **fields: Any) -> dict[str, Any]:
    """An event without sequence_number (`numbered` adds it)."""
    return {"type": f"response.{event_type}", **fields}


def text_stream(deltas: tuple[str, ...] = ("Hel", "lo, ", "world!")) -> list[dict[str, Any]]:
    text = "".join(deltas)
    part = {"item_id": MSG_ID, "output_index": 0, "content_index": 0}
    body = [
        ev("output_item.added", output_index=0, item=message_item("", "in_progress")),
        ev("content_part.added", **part, part=output_text_part("")),
        *(ev("output_text.delta", **part, delta=d, logprobs=[]) for d in deltas),
        ev("output_text.done", **part, text=text, logprobs=[]),
        ev("content_part.done", **part, part=output_text_part(text)),
        ev("output_item.done", output_index=0, item=message_item(text)),
    ]
    return lifecycle(make_response(output=[message_item(text)]), body)


def function_call_stream() -> list[dict[str, Any]]:
    pieces = ('{"city": ', '"Paris"}')
    arguments = "".join(pieces)
    where = {"item_id": FC_ID, "output_index": 0}
    body = [
        ev("output_item.added", output_index=0, item=function_call_item("", "in_progress")),
        *(ev("function_call_arguments.delta", **where, delta=p) for p in pieces),
        ev("function_call_arguments.done", **where, arguments=arguments),
        ev("output_item.done", output_index=0, item=function_call_item(arguments)),
    ]
    final = make_response(
        output=[function_call_item(arguments)],
        tools=[
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "strict": False,
            }
        ],
    )
    return lifecycle(final, body)


def custom_tool_call_stream() -> list[dict[str, Any]]:
    pieces = ("*** Begin Patch\n", "*** Add File: a.txt\n+hi\n", "*** End Patch\n")
    patch = "".join(pieces)
    where = {"item_id": CTC_ID, "output_index": 0}
    body = [
        ev("output_item.added", output_index=0, item=custom_tool_call_item("", "in_progress")),
        *(ev("custom_tool_call_input.delta", **where, delta=p) for p in pieces),
        ev("custom_tool_call_input.done", **where, input=patch),
        ev("output_item.done", output_index=0, item=custom_tool_call_item(patch)),
    ]
    return lifecycle(make_response(output=[custom_tool_call_item(patch)]), body)


def first(events: list[dict[str, Any]], event_type: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == event_type)


DONE = "data: [DONE]\n\n"


def to_sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def with_keepalive(events: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    """`events` with a keepalive event at `index`, every event numbered in order."""
    out = [dict(e) for e in events]
    out.insert(index, {"type": "keepalive", "sequence_number": 0})
    for number, event in enumerate(out):
        event["sequence_number"] = number
    return out


def assert_rejected(match: str, func: Any, *args: Any) -> str:
    with pytest.raises(AssertionError, match=match) as info:
        func(*args)
    return str(info.value)


# --------------------------------------------------------------------------- setup


def test_the_spec_is_the_copy_in_the_repository() -> None:
    repository = Path(__file__).resolve().parents[1]
    assert spec_path() == repository / "tests" / "fixtures" / "openresponses" / "openapi.json"
    spec = json.loads(spec_path().read_text(encoding="utf-8"))
    assert spec["info"] == {"title": "Open Responses", "version": "2026-04-24"}
    assert "ResponseResource" in spec["components"]["schemas"]


# --------------------------------------------------------------------------- accepted


def test_minimal_text_response_is_valid() -> None:
    validate_response(make_response(output=[message_item("Hello, world!")]))


def test_nullable_fields_accept_explicit_null() -> None:
    validate_response(in_progress(make_response()) | {"tool_choice": "none", "truncation": "auto"})


def test_text_stream_of_eleven_events_is_valid() -> None:
    events = text_stream()
    assert len(events) == 11
    final = validate_stream(events)
    assert final["output"][0]["content"][0]["text"] == "Hello, world!"
    validate_response(final)


def test_function_call_stream_is_valid() -> None:
    final = validate_stream(function_call_stream())
    assert final["output"][0]["arguments"] == '{"city": "Paris"}'


def test_sse_round_trip() -> None:
    body = to_sse(text_stream()) + DONE
    assert parse_sse(body) == text_stream()
    validate_stream(parse_sse(": keep-alive\n\n" + body))


@pytest.mark.parametrize("index", [1, 2, 6, 10])
def test_keepalive_events_take_a_number_and_are_skipped(index: int) -> None:
    events = with_keepalive(text_stream(), index)
    final = validate_stream(parse_sse(to_sse(events) + DONE))
    assert final["output"][0]["content"][0]["text"] == "Hello, world!"


def test_keepalive_must_follow_created_and_precede_the_terminal_event() -> None:
    assert_rejected(
        "first event must be response.created", validate_stream, with_keepalive(text_stream(), 0)
    )
    assert_rejected(
        "last event must be one of .* got keepalive",
        validate_stream,
        with_keepalive(text_stream(), 11),
    )


def test_keepalive_carries_nothing_else() -> None:
    events = with_keepalive(text_stream(), 2)
    events[2]["response"] = {}
    assert_rejected("keepalive event is", validate_stream, events)
    events = with_keepalive(text_stream(), 2)
    events[3]["sequence_number"] = 2  # the keepalive's number used twice
    assert_rejected("sequence_number is 2, expected 3", validate_stream, events)


# --------------------------------------------------------------------------- rejected


def test_rejects_response_missing_completed_at() -> None:
    response = make_response()
    del response["completed_at"]
    message = assert_rejected("'completed_at' is a required property", validate_response, response)
    assert "ResponseResource" in message


def test_rejects_wrong_sequence_numbers() -> None:
    events = text_stream()
    events[4]["sequence_number"] = 5
    assert_rejected(r"event #4 .*sequence_number is 5, expected 4", validate_stream, events)


def test_rejects_sequence_not_starting_at_zero() -> None:
    events = [{**e, "sequence_number": e["sequence_number"] + 1} for e in text_stream()]
    assert_rejected("sequence_number is 1, expected 0", validate_stream, events)


def test_rejects_text_delta_done_mismatch() -> None:
    events = text_stream()
    events[5]["delta"] = "LO, "
    assert_rejected("deltas concatenate to 'HelLO, world!'", validate_stream, events)


def test_rejects_arguments_delta_done_mismatch() -> None:
    events = function_call_stream()
    first(events, "response.function_call_arguments.done")["arguments"] = '{"city": "Rome"}'
    assert_rejected("deltas concatenate to .* but arguments is", validate_stream, events)


def test_rejects_unknown_event_type() -> None:
    event = {"type": "acme:debug", "sequence_number": 0}
    assert_rejected("unknown streaming event type 'acme:debug'", validate_event, event)
    events = text_stream()
    events.insert(3, {"type": "response.output_text.annotation.removed", "sequence_number": 3})
    assert_rejected("event #3: unknown streaming event type", validate_stream, numbered(events))


def test_rejects_output_text_part_without_annotations() -> None:
    item = message_item("Hi")
    del item["content"][0]["annotations"]
    message = assert_rejected(
        r"\$\.output\[0\]\.content\[0\]: 'annotations' is a required property",
        validate_response,
        make_response(output=[item]),
    )
    # The union error is narrowed to the output_text branch, not "not valid under any".
    assert "not valid under any" not in message

    events = text_stream()
    del events[-1]["response"]["output"][0]["content"][0]["annotations"]
    assert_rejected("'annotations' is a required property", validate_stream, events)


def test_rejects_event_missing_required_field() -> None:
    events = text_stream()
    del events[4]["item_id"]
    assert_rejected(
        r"(?s)event #4: .*\$: 'item_id' is a required property", validate_stream, events
    )


def test_rejects_changed_response_id() -> None:
    events = text_stream()
    events[1]["response"] = {**events[1]["response"], "id": "resp_other"}
    assert_rejected("differs from response.created", validate_stream, events)


def test_rejects_mismatched_item_ids() -> None:
    events = text_stream()
    events[-2]["item"] = {**events[-2]["item"], "id": "msg_other"}
    assert_rejected("differs from output_item.added", validate_stream, events)

    events = text_stream()
    events[-1]["response"]["output"][0]["id"] = "msg_other"
    assert_rejected("response.output ids", validate_stream, events)


def test_rejects_missing_terminal_event() -> None:
    assert_rejected("last event must be", validate_stream, text_stream()[:-1])


def test_rejects_terminal_status_mismatch() -> None:
    events = text_stream()
    events[-1]["response"]["status"] = "in_progress"
    assert_rejected("carries response status 'in_progress'", validate_stream, events)


def test_rejects_unclosed_output_item() -> None:
    events = text_stream()
    del events[-2]
    events[-1]["response"]["output"] = []
    assert_rejected("output items never done", validate_stream, numbered(events))


def test_rejects_final_item_text_disagreeing_with_done_event() -> None:
    events = text_stream()
    events[-2]["item"]["content"][0]["text"] = "Hello"
    assert_rejected(r"content\[0\]\.text is 'Hello'", validate_stream, events)


# --------------------------------------------------------------------------- quirks, extensions


def test_json_schema_format_echo_is_tolerated() -> None:
    fmt = {
        "type": "json_schema",
        "name": "answer",
        "description": None,
        "schema": {"type": "object", "properties": {"a": {"type": "string"}}},
        "strict": True,
    }
    validate_response(make_response(text={"format": fmt}))
    validate_response(make_response(text={"format": fmt | {"schema": None}}))
    # Only `schema` is excused: the format's other required fields still count.
    bad = {k: v for k, v in fmt.items() if k != "name"}
    assert_rejected(
        "'name' is a required property", validate_response, make_response(text={"format": bad})
    )


def test_response_tools_must_be_function_tools() -> None:
    tools = [{"type": "web_search"}]
    assert_rejected(r"\$\.tools\[0\]", validate_response, make_response(tools=tools))


def test_custom_tool_call_stream_is_valid() -> None:
    final = validate_stream(custom_tool_call_stream())
    assert final["output"][0]["type"] == "custom_tool_call"


def test_custom_tool_call_item_is_checked_locally() -> None:
    item = custom_tool_call_item("x")
    del item["input"]
    assert_rejected(
        r"\$\.output\[0\]: 'input' is a required property",
        validate_response,
        make_response(output=[item]),
    )
    item = custom_tool_call_item("x", status="done")
    assert_rejected(r"\$\.output\[0\]\.status", validate_response, make_response(output=[item]))


def test_custom_tool_call_input_delta_done_mismatch() -> None:
    events = custom_tool_call_stream()
    first(events, "response.custom_tool_call_input.done")["input"] = "*** Begin Patch\n"
    assert_rejected("deltas concatenate to .* but input is", validate_stream, events)


def test_function_call_namespace_must_be_a_string() -> None:
    item = function_call_item("{}") | {"namespace": "github"}
    validate_response(make_response(output=[item]))
    item["namespace"] = 3
    assert_rejected(r"\$\.output\[0\]\.namespace", validate_response, make_response(output=[item]))


# --------------------------------------------------------------------------- SSE framing


def test_parse_sse_rejects_crlf() -> None:
    body = to_sse(text_stream()).replace("\n", "\r\n")
    assert_rejected("'\\\\r'", parse_sse, body)


def test_parse_sse_rejects_event_name_mismatch() -> None:
    body = 'event: response.created\ndata: {"type": "response.in_progress"}\n\n'
    assert_rejected("but data type is 'response.in_progress'", parse_sse, body)


def test_parse_sse_rejects_unterminated_frame() -> None:
    assert_rejected("not terminated", parse_sse, to_sse(text_stream()) + DONE[:-1])


def test_parse_sse_wants_done_right_after_the_terminal_event() -> None:
    body = to_sse(text_stream())
    assert len(parse_sse(body + DONE)) == 11
    assert_rejected(r"no 'data: \[DONE\]' after the terminal event", parse_sse, body)
    cut = to_sse(text_stream()[:5])
    assert len(parse_sse(cut)) == 5  # a stream read only in part needs none
    assert_rejected(r"\[DONE\]' before the terminal event", parse_sse, cut + DONE)
    assert_rejected(r"frame after data: \[DONE\]", parse_sse, body + DONE + cut)
    assert_rejected("without an 'event:' line", parse_sse, body + "event: done\n" + DONE)


def test_validator_does_not_mutate_input() -> None:
    events = text_stream()
    snapshot = copy.deepcopy(events)
    validate_stream(events)
    assert events == snapshot


def test_unknown_item_type_names_the_accepted_types() -> None:
    # (`web_search_call` is accepted: the bridge runs web searches, issue 44.)
    item = {"type": "file_search_call", "id": "fs_1", "status": "completed"}
    assert_rejected(
        r"\$\.output\[0\]: type 'file_search_call' is not accepted here .*function_call",
        validate_response,
        make_response(output=[item]),
    )


def test_failed_stream_may_stop_mid_item() -> None:
    events = text_stream()[:6]  # cut off after the second text delta
    failed = make_response(
        status="failed",
        completed_at=None,
        error={"code": "server_error", "message": "model stream broke"},
    )
    events.append({"type": "response.failed", "response": failed})
    assert validate_stream(numbered(events))["error"]["code"] == "server_error"
    events[-1] = {"type": "response.completed", "response": failed | {"status": "completed"}}
    assert_rejected("never done", validate_stream, numbered(events))


def test_web_search_calls_are_checked_as_the_openai_sdk_types_them() -> None:
    item = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "q", "sources": [{"type": "url", "url": "u"}]},
    }
    validate_response(make_response(output=[item]))
    assert_rejected(
        r"\$\.output\[0\]", validate_response, make_response(output=[{**item, "status": "done"}])
    )
    no_action = {k: v for k, v in item.items() if k != "action"}
    assert_rejected(
        r"'action' is a required property", validate_response, make_response(output=[no_action])
    )
