"""`ResponseEventBuilder`: editor parts -> Responses streaming events, checked against the spec."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from spec_validation import validate_event, validate_response, validate_stream

from bridge.core.backend import DataPart, ResponsePart, TextPart, ThinkingPart, ToolCallPart
from bridge.responses.events import Event, ResponseEventBuilder
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object
from bridge.responses.tools import ToolTarget

RESPONSE_ID = "resp_AM-1795312537999-abcd1234"

TARGETS: dict[str, ToolTarget] = {
    "exec_command": ToolTarget("function", "exec_command"),
    "apply_patch": ToolTarget("custom", "apply_patch"),
    "multi_agent_v1__spawn_agent": ToolTarget("function", "spawn_agent", "multi_agent_v1"),
}

TEXT_STREAM_TYPES = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
]


def builder(*, summary: bool = False, **request: Any) -> ResponseEventBuilder:
    parsed = parse_create_request({"model": "sim-echo", "input": "hi", **request})
    response = new_response(parsed, RESPONSE_ID, [], "auto")
    return ResponseEventBuilder(response, TARGETS, summary)


def run(
    batches: list[list[ResponsePart]],
    *,
    summary: bool = False,
    usage: Event | None = None,
) -> list[Event]:
    """The whole stream for these batches, each event checked against the spec on the way."""
    b = builder(summary=summary)
    events = b.start()
    for parts in batches:
        events += b.add(parts)
    events += b.complete(usage or b.usage or usage_object(3, 5))
    for event in events:
        validate_event(event)
    return events


def types(events: list[Event]) -> list[str]:
    return [event["type"] for event in events]


def of_type(events: list[Event], type_: str) -> list[Event]:
    return [event for event in events if event["type"] == type_]


def usage_part(payload: Any) -> DataPart:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    return DataPart(mimeType="usage", data=base64.b64encode(raw.encode()).decode())


# --------------------------------------------------------------------------- text


def test_text_stream_event_sequence() -> None:
    events = run([[TextPart(value="Hel"), TextPart(value="lo")], [TextPart(value=" world")]])

    assert types(events) == TEXT_STREAM_TYPES
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    final = validate_stream(events)
    validate_response(final)

    deltas = of_type(events, "response.output_text.delta")
    assert [d["delta"] for d in deltas] == ["Hel", "lo", " world"]
    assert all(d["logprobs"] == [] for d in deltas)
    (done,) = of_type(events, "response.output_text.done")
    assert done["text"] == "Hello world"
    assert done["logprobs"] == []

    assert final["id"] == RESPONSE_ID
    assert final["status"] == "completed"
    assert isinstance(final["completed_at"], int)
    assert final["usage"] == usage_object(3, 5)
    (message,) = final["output"]
    assert message["type"] == "message"
    assert message["role"] == "assistant"
    assert message["status"] == "completed"
    assert message["id"].startswith("msg_AM-")
    assert message["content"] == [
        {"type": "output_text", "text": "Hello world", "annotations": [], "logprobs": []}
    ]
    assert all(d["item_id"] == message["id"] for d in deltas)


def test_lifecycle_events_share_the_response_and_are_snapshots() -> None:
    events = run([[TextPart(value="Hi")]])

    created, in_progress = events[0], events[1]
    assert created["response"]["id"] == in_progress["response"]["id"] == RESPONSE_ID
    assert events[-1]["response"]["id"] == RESPONSE_ID
    for event in (created, in_progress):
        assert event["response"]["status"] == "in_progress"
        assert event["response"]["output"] == []
        assert event["response"]["usage"] is None
    # The item announced as added is not the finished one.
    added = of_type(events, "response.output_item.added")[0]["item"]
    assert added["status"] == "in_progress"
    assert added["content"] == []


def test_empty_parts_produce_no_events() -> None:
    b = builder()
    b.start()
    assert b.add([TextPart(value=""), ThinkingPart(value="")]) == []
    assert b.add([]) == []


def test_no_output_still_completes() -> None:
    events = run([])

    assert types(events) == ["response.created", "response.in_progress", "response.completed"]
    assert validate_stream(events)["output"] == []


# --------------------------------------------------------------------------- tool calls


def test_text_tool_call_text_keeps_model_order() -> None:
    events = run(
        [
            [TextPart(value="Let me look.")],
            [ToolCallPart(callId="toolu_1", name="exec_command", input={"cmd": "ls"})],
            [TextPart(value="Running it now.")],
        ]
    )

    final = validate_stream(events)
    validate_response(final)
    assert [item["type"] for item in final["output"]] == ["message", "function_call", "message"]
    first, call, last = final["output"]
    assert first["content"][0]["text"] == "Let me look."
    assert call["call_id"] == "toolu_1"
    assert last["content"][0]["text"] == "Running it now."
    assert first["id"] != last["id"]
    added = of_type(events, "response.output_item.added")
    assert [event["output_index"] for event in added] == [0, 1, 2]


def test_function_call_events() -> None:
    arguments = {"cmd": "ls -la", "workdir": "/tmp", "env": {"A": "é"}}
    events = run([[ToolCallPart(callId="toolu_01ABC", name="exec_command", input=arguments)]])

    final = validate_stream(events)
    assert types(events)[2:-1] == [
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    ]
    (delta,) = of_type(events, "response.function_call_arguments.delta")
    (done,) = of_type(events, "response.function_call_arguments.done")
    assert json.loads(delta["delta"]) == arguments  # the whole call in one delta
    assert done["arguments"] == delta["delta"]

    (item,) = final["output"]
    assert item["type"] == "function_call"
    assert item["id"].startswith("fc_AM-")
    assert item["call_id"] == "toolu_01ABC"  # the editor's id, kept for the tool result
    assert item["name"] == "exec_command"
    assert item["arguments"] == done["arguments"]
    assert item["status"] == "completed"
    assert "namespace" not in item
    assert delta["item_id"] == done["item_id"] == item["id"]

    added = of_type(events, "response.output_item.added")[0]["item"]
    assert added["id"] == item["id"]
    assert added["call_id"] == "toolu_01ABC"
    assert added["arguments"] == ""
    assert added["status"] == "in_progress"


def test_tool_call_without_call_id_gets_one() -> None:
    events = run([[ToolCallPart(callId="", name="exec_command", input={})]])

    (item,) = validate_stream(events)["output"]
    assert item["call_id"].startswith("call_AM-")
    assert item["arguments"] == "{}"


def test_unknown_tool_name_is_a_function_call() -> None:
    events = run([[ToolCallPart(callId="c1", name="not_planned", input={"a": 1})]])

    (item,) = validate_stream(events)["output"]
    assert item["type"] == "function_call"
    assert item["name"] == "not_planned"


def test_custom_tool_call() -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    events = run([[ToolCallPart(callId="call_p", name="apply_patch", input={"input": patch})]])

    final = validate_stream(events)
    validate_response(final)
    assert types(events)[2:-1] == [
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
    ]
    assert of_type(events, "response.function_call_arguments.delta") == []
    (delta,) = of_type(events, "response.custom_tool_call_input.delta")
    (done,) = of_type(events, "response.custom_tool_call_input.done")
    assert delta["delta"] == patch
    assert done["input"] == patch

    (item,) = final["output"]
    assert item == {
        "type": "custom_tool_call",
        "id": item["id"],
        "call_id": "call_p",
        "name": "apply_patch",
        "input": patch,
        "status": "completed",
    }
    assert item["id"].startswith("ctc_AM-")
    assert delta["item_id"] == done["item_id"] == item["id"]


def test_namespaced_function_call() -> None:
    events = run(
        [[ToolCallPart(callId="c1", name="multi_agent_v1__spawn_agent", input={"task": "x"})]]
    )

    (item,) = validate_stream(events)["output"]
    assert item["type"] == "function_call"
    assert item["name"] == "spawn_agent"
    assert item["namespace"] == "multi_agent_v1"
    assert json.loads(item["arguments"]) == {"task": "x"}
    added = of_type(events, "response.output_item.added")[0]["item"]
    assert added["namespace"] == "multi_agent_v1"


def test_parallel_tool_calls_are_separate_items() -> None:
    events = run(
        [
            [
                ToolCallPart(callId="a", name="exec_command", input={"cmd": "ls"}),
                ToolCallPart(callId="b", name="exec_command", input={"cmd": "pwd"}),
            ]
        ]
    )

    output = validate_stream(events)["output"]
    assert [item["call_id"] for item in output] == ["a", "b"]
    assert len({item["id"] for item in output}) == 2


# --------------------------------------------------------------------------- reasoning


def test_thinking_becomes_a_reasoning_item_before_the_message() -> None:
    events = run(
        [
            [ThinkingPart(value="The user "), ThinkingPart(value="says hi.")],
            [TextPart(value="Hello!")],
        ]
    )

    final = validate_stream(events)
    validate_response(final)
    assert [item["type"] for item in final["output"]] == ["reasoning", "message"]
    reasoning = final["output"][0]
    assert reasoning["id"].startswith("rs_AM-")
    assert reasoning["summary"] == []
    assert reasoning["content"] == [{"type": "reasoning_text", "text": "The user says hi."}]
    assert not [t for t in types(events) if t.startswith("response.reasoning_summary")]
    assert types(events)[2:5] == [
        "response.output_item.added",
        "response.output_item.done",
        "response.output_item.added",
    ]


def test_thinking_with_summary_requested() -> None:
    events = run(
        [
            [ThinkingPart(value="The user "), ThinkingPart(value="says hi.")],
            [TextPart(value="Hello!")],
        ],
        summary=True,
    )

    final = validate_stream(events)
    validate_response(final)
    assert types(events)[2:9] == [
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
    ]
    deltas = of_type(events, "response.reasoning_summary_text.delta")
    assert [d["delta"] for d in deltas] == ["The user ", "says hi."]
    (done,) = of_type(events, "response.reasoning_summary_text.done")
    assert done["text"] == "The user says hi."
    reasoning = final["output"][0]
    assert reasoning["summary"] == [{"type": "summary_text", "text": "The user says hi."}]
    assert all(event["item_id"] == reasoning["id"] for event in deltas)


def test_thinking_after_text_opens_a_new_item() -> None:
    events = run(
        [[TextPart(value="a")], [ThinkingPart(value="hmm")], [TextPart(value="b")]],
        summary=True,
    )

    output = validate_stream(events)["output"]
    assert [item["type"] for item in output] == ["message", "reasoning", "message"]


# --------------------------------------------------------------------------- usage


def test_usage_data_part() -> None:
    b = builder()
    events = b.start()
    events += b.add(
        [
            TextPart(value="Hi"),
            usage_part(
                {
                    "prompt_tokens": 120,
                    "completion_tokens": 30,
                    "total_tokens": 150,
                    "prompt_tokens_details": {"cached_tokens": 100},
                    "completion_tokens_details": {"reasoning_tokens": 12},
                }
            ),
        ]
    )
    assert b.usage == {
        "input_tokens": 120,
        "input_tokens_details": {"cached_tokens": 100},
        "output_tokens": 30,
        "output_tokens_details": {"reasoning_tokens": 12},
        "total_tokens": 150,
    }
    events += b.complete(b.usage)

    final = validate_stream(events)
    validate_response(final)
    assert final["usage"] == b.usage
    # The usage part is not output.
    assert [item["type"] for item in final["output"]] == ["message"]
    assert final["output"][0]["content"][0]["text"] == "Hi"


def test_usage_without_details() -> None:
    b = builder()
    b.start()
    assert b.add([usage_part({"prompt_tokens": 7, "completion_tokens": 2})]) == []
    assert b.usage == usage_object(7, 2)


@pytest.mark.parametrize(
    "part",
    [
        DataPart(mimeType="usage", data="!!! not base64 !!!"),
        usage_part("not json"),
        usage_part([1, 2, 3]),
        usage_part("null"),
        usage_part({"prompt_tokens": "many", "completion_tokens": 2}),
        usage_part({"prompt_tokens": None, "completion_tokens": 2}),
        usage_part({"prompt_tokens": 1, "completion_tokens_details": "lots"}),
        usage_part('{"prompt_tokens": 1e999, "completion_tokens": 2}'),
    ],
    ids=[
        "not-base64",
        "not-json",
        "json-list",
        "json-null",
        "string-count",
        "null-count",
        "bad-details",
        "out-of-range-count",
    ],
)
def test_malformed_usage_is_ignored(part: DataPart) -> None:
    b = builder()
    events = b.start()
    events += b.add([TextPart(value="a"), part, TextPart(value="b")])
    assert b.usage is None
    events += b.complete(usage_object(1, 1))

    final = validate_stream(events)
    assert final["output"][0]["content"][0]["text"] == "ab"


def test_other_data_parts_are_ignored() -> None:
    b = builder()
    b.start()
    image = DataPart(mimeType="image/png", data=base64.b64encode(b"\x89PNG").decode())
    assert b.add([image]) == []
    assert b.usage is None
    assert b.response["output"] == []


# --------------------------------------------------------------------------- failure


def test_fail_closes_the_open_message() -> None:
    b = builder()
    events = b.start()
    events += b.add([TextPart(value="Partial ans")])
    events += b.fail("rate_limit_exceeded", "Quota exceeded.")
    for event in events:
        validate_event(event)

    assert types(events)[-5:] == [
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.failed",
    ]
    final = validate_stream(events)
    validate_response(final)
    assert final["status"] == "failed"
    assert final["error"] == {"code": "rate_limit_exceeded", "message": "Quota exceeded."}
    (message,) = final["output"]
    assert message["status"] == "incomplete"
    assert message["content"][0]["text"] == "Partial ans"
    done_item = of_type(events, "response.output_item.done")[0]["item"]
    assert done_item["status"] == "incomplete"


def test_fail_closes_the_open_reasoning_item() -> None:
    b = builder(summary=True)
    events = b.start()
    events += b.add([ThinkingPart(value="thinking...")])
    events += b.fail("editor_error", "The editor went away.")

    final = validate_stream(events)
    validate_response(final)
    assert types(events)[-2:] == ["response.output_item.done", "response.failed"]
    assert final["output"][0]["summary"] == [{"type": "summary_text", "text": "thinking..."}]
    assert final["error"]["code"] == "editor_error"


def test_fail_after_finished_items() -> None:
    b = builder()
    events = b.start()
    events += b.add([ToolCallPart(callId="c1", name="exec_command", input={})])
    events += b.fail("model_not_found", "gone")

    assert types(events)[-2:] == ["response.output_item.done", "response.failed"]
    final = validate_stream(events)
    assert final["output"][0]["status"] == "completed"
    assert final["completed_at"] is None
    assert final["usage"] is None


def test_fail_before_any_output() -> None:
    b = builder()
    events = b.start() + b.fail("permission_denied", "No consent.")

    assert types(events) == ["response.created", "response.in_progress", "response.failed"]
    assert [event["sequence_number"] for event in events] == [0, 1, 2]
    final = validate_stream(events)
    validate_response(final)
    assert final["error"] == {"code": "permission_denied", "message": "No consent."}


# --------------------------------------------------------------------------- held start, keepalive


def test_the_start_is_held_until_the_first_part() -> None:
    b = builder()
    assert not b.started
    events = b.add([TextPart(value="Hi")])
    assert b.started
    assert types(events)[:2] == ["response.created", "response.in_progress"]
    assert b.start() == []  # once only
    events += b.complete(usage_object(1, 1))
    assert types(events).count("response.created") == 1
    validate_stream(events)


def test_a_usage_part_alone_starts_the_stream() -> None:
    b = builder()
    events = b.add([DataPart(mimeType="usage", data=base64.b64encode(b"{}").decode())])
    assert types(events) == ["response.created", "response.in_progress"]
    assert b.add([]) == []


def test_each_terminal_event_starts_an_unstarted_stream() -> None:
    for end in ("complete", "incomplete", "fail"):
        b = builder()
        if end == "complete":
            events = b.complete(usage_object(1, 0))
        elif end == "incomplete":
            events = b.incomplete(usage_object(1, 0), "max_output_tokens")
        else:
            events = b.fail("editor_error", "broken")
        assert types(events)[:2] == ["response.created", "response.in_progress"], end
        validate_stream(events)


def test_keepalives_are_numbered_in_the_response_sequence() -> None:
    b = builder()
    events = b.keepalive()  # the model is silent from the start
    assert types(events) == ["response.created", "response.in_progress", "keepalive"]
    events += b.keepalive()
    events += b.add([TextPart(value="Hel")])
    events += b.keepalive()  # silent between parts
    events += b.add([TextPart(value="lo")])
    events += b.complete(usage_object(1, 2))

    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    keepalives = of_type(events, "keepalive")
    assert len(keepalives) == 3
    assert all(set(event) == {"type", "sequence_number"} for event in keepalives)
    final = validate_stream(events)
    assert final["output"][0]["content"][0]["text"] == "Hello"
