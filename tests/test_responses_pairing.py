"""The Responses conversion says when its tool history is already paired
(`paired_conversation`), and `editor_messages` then skips `normalise_tool_history`: that must
only ever be said of a conversation the normalising pass would leave exactly as it is, and be
said of the ordinary agent history (else the pass it saves runs anyway)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from responses_bodies import EVERY_KIND, Body, client_bodies

from bench import conversation
from bench.dialect_bodies import responses_body
from bridge.core.errors import ApiError
from bridge.core.history import normalise_tool_history
from bridge.responses.convert_input import editor_messages, paired_conversation
from bridge.responses.request import parse_create_request


def _call(call_id: str) -> Body:
    return {"type": "function_call", "call_id": call_id, "name": "shell", "arguments": "{}"}


def _output(call_id: str) -> Body:
    return {"type": "function_call_output", "call_id": call_id, "output": f"out {call_id}"}


def _search(call_id: str) -> Body:
    return {"type": "tool_search_call", "call_id": call_id, "execution": "client"}


def _found(call_id: str) -> Body:
    return {"type": "tool_search_output", "call_id": call_id, "execution": "client"}


def _text(role: str, text: str = "hi") -> Body:
    return {"type": "message", "role": role, "content": text}


# Calls and results of a few ids (paired, repeated, out of order, orphaned), and everything
# that can sit between them.
POOL: list[Body] = [
    *(make(i) for i in ("c1", "c2", "c3") for make in (_call, _output)),
    _search("s1"),
    _found("s1"),
    {"type": "custom_tool_call", "call_id": "x1", "name": "patch", "input": "p"},
    {"type": "custom_tool_call_output", "call_id": "x1", "output": "done"},
    _text("user"),
    _text("assistant"),
    _text("developer"),
    _text("user", ""),
    {"type": "reasoning", "summary": []},
    {"type": "agent_message", "author": "child"},
]


def _converted(items: list[Body]) -> tuple[Any, bool] | None:
    try:
        return paired_conversation(parse_create_request({"model": "m", "input": items}))
    except ApiError:
        return None  # an orphan result: a 400 either way


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(POOL), max_size=14))
def test_a_history_said_to_be_paired_is_one_normalising_leaves_alone(items: list[Body]) -> None:
    converted = _converted(items)
    if converted is None:
        return
    messages, paired = converted
    normalised = normalise_tool_history(messages)
    if paired:
        assert normalised == messages
    assert editor_messages(parse_create_request({"model": "m", "input": items})) == normalised


@pytest.mark.parametrize(
    "items",
    [
        [_call("c1"), _call("c2"), _output("c1"), _output("c2")],
        [_text("assistant"), _call("c1"), _text("assistant"), _output("c1"), _text("user")],
        [_call("c1"), _output("c1"), _call("c2"), {"type": "reasoning"}, _output("c2")],
        [_search("s1"), _found("s1"), _text("developer"), _call("c1"), _output("c1")],
    ],
)
def test_a_well_paired_history_is_said_to_be(items: list[Body]) -> None:
    converted = _converted(items)
    assert converted is not None
    messages, paired = converted
    assert paired
    assert normalise_tool_history(messages) == messages


@pytest.mark.parametrize(
    "items",
    [
        [_call("c1")],  # never answered
        [_call("c1"), _call("c2"), _output("c2"), _output("c1")],  # answered out of order
        [_call("c1"), _text("user"), _output("c1")],  # answered after other text
        [_call("c1"), _output("c1"), _output("c1")],  # answered twice
        [_call("c1"), _output("c1"), _call("c1"), _output("c1")],  # an id used again
        [_text("assistant"), _output("c1"), _call("c1")],  # a result before its call
    ],
)
def test_a_history_normalising_changes_is_not_said_to_be_paired(items: list[Body]) -> None:
    converted = _converted(items)
    assert converted is not None
    messages, paired = converted
    assert not paired
    assert normalise_tool_history(messages) != messages


def test_agent_histories_are_paired_as_they_come() -> None:
    """The sweep's history and every captured client history that pairs its calls."""
    bodies = {"bench": responses_body(conversation.history(401)), **client_bodies()}
    for name, body in bodies.items():
        try:
            request = parse_create_request(body)
        except ApiError:
            continue  # state the bridge does not keep (previous_response_id): a 400
        messages, paired = paired_conversation(request)
        if paired:
            assert normalise_tool_history(messages) == messages, name
    assert paired_conversation(parse_create_request(bodies["bench"]))[1]
    assert paired_conversation(parse_create_request({"model": "m", "input": EVERY_KIND}))[1]
