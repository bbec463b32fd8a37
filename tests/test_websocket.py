"""Unit tests of WebSocket mode's pure parts: frames, error events, the connection cache."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError
from spec_validation import (
    validate_stream,
    validate_websocket_create,
    validate_websocket_error,
)

from bridge.cli import _parser
from bridge.core.errors import ApiError
from bridge.responses.request import parse_create_request
from bridge.responses.websocket_frames import (
    CachedResponse,
    cached_after,
    conversation_input,
    error_event,
    parse_frame,
    warmup_events,
)
from bridge.settings import BridgeSettings

USER = {"type": "message", "role": "user", "content": "hi"}


def _raises(text: str, param: str | None = None) -> ApiError:
    with pytest.raises(ApiError) as caught:
        parse_frame(text)
    error = caught.value
    assert (error.status, error.code, error.param) == (400, "invalid_request_error", param)
    validate_websocket_error(error_event(error))
    return error


# --------------------------------------------------------------------------- frames


def test_flat_frame() -> None:
    frame = {"type": "response.create", "model": "sim-echo", "input": [USER], "store": False}
    validate_websocket_create(frame)
    parsed = parse_frame(json.dumps(frame))
    assert parsed.body == {"model": "sim-echo", "input": [USER], "store": False}
    assert parsed.previous_response_id is None
    assert parsed.generate is True


def test_nested_frame() -> None:
    inner = {"model": "sim-echo", "input": "hi", "previous_response_id": "resp_1"}
    parsed = parse_frame(json.dumps({"type": "response.create", "response": inner}))
    assert parsed.body == {"model": "sim-echo", "input": "hi"}
    assert parsed.previous_response_id == "resp_1"


def test_transport_fields_are_not_part_of_the_body() -> None:
    frame = {
        "type": "response.create",
        "model": "m",
        "input": "x",
        "generate": False,
        "stream": True,
        "stream_options": {},
        "background": False,
        "stream_id": "s1",
        "previous_response_id": None,
    }
    parsed = parse_frame(json.dumps(frame))
    assert parsed.body == {"model": "m", "input": "x"}
    assert parsed.generate is False
    assert parsed.previous_response_id is None


def test_generate_on_the_outer_frame_of_a_nested_create() -> None:
    frame = {"type": "response.create", "generate": False, "response": {"model": "m"}}
    assert parse_frame(json.dumps(frame)).generate is False


@pytest.mark.parametrize(
    ("text", "param"),
    [
        ("{not json", None),
        ("[1, 2]", None),
        ('"response.create"', None),
        ("null", None),
        ("[" * 100_000, None),
        ('{"model": "m"}', "type"),
        ('{"type": "response.cancel"}', "type"),
        ('{"type": "response.create", "response": [1]}', "response"),
        ('{"type": "response.create", "generate": "no"}', "generate"),
        ('{"type": "response.create", "previous_response_id": 5}', "previous_response_id"),
    ],
)
def test_malformed_frames(text: str, param: str | None) -> None:
    _raises(text, param)


def test_error_event_shape() -> None:
    error = ApiError(404, "no such model", param="model", code="model_not_found")
    event = error_event(error)
    validate_websocket_error(event)
    assert event == {
        "type": "error",
        "status": 404,
        "error": {
            "type": "invalid_request_error",
            "code": "model_not_found",
            "message": "no such model",
            "param": "model",
        },
    }


def test_error_event_without_code_uses_the_type() -> None:
    event = error_event(ApiError(502, "editor gone", type="server_error"))
    validate_websocket_error(event)
    assert event["error"]["code"] == "server_error"


# --------------------------------------------------------------------------- the cache


def test_fresh_turn_takes_its_input() -> None:
    assert conversation_input(None, None, [USER]) == [USER]
    assert conversation_input(None, None, "hi") == [USER]
    cached = CachedResponse("resp_1", [USER])
    assert conversation_input(cached, None, "hello") == [{**USER, "content": "hello"}]


def test_continuation_prepends_the_cached_conversation() -> None:
    answer = {"type": "message", "role": "assistant", "content": "hello"}
    cached = CachedResponse("resp_1", [USER, answer])
    assert conversation_input(cached, "resp_1", "again") == [
        USER,
        answer,
        {**USER, "content": "again"},
    ]
    assert conversation_input(cached, "resp_1", None) == [USER, answer]
    assert cached.items == [USER, answer]  # the cache itself is not extended in place


@pytest.mark.parametrize("cached", [None, CachedResponse("resp_1", [USER])])
def test_unknown_previous_response(cached: CachedResponse | None) -> None:
    with pytest.raises(ApiError) as caught:
        conversation_input(cached, "resp_other", "x")
    error = caught.value
    assert (error.status, error.code, error.param) == (
        400,
        "previous_response_not_found",
        "previous_response_id",
    )
    assert "resp_other" in error.message
    validate_websocket_error(error_event(error))


def test_continuation_input_must_be_text_or_items() -> None:
    with pytest.raises(ApiError) as caught:
        conversation_input(CachedResponse("r", []), "r", 42)
    assert caught.value.param == "input"


def _response(status: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "resp_2", "status": status, "output": output}


def test_completed_and_incomplete_responses_are_kept_with_their_output() -> None:
    out = [{"type": "message", "role": "assistant", "content": []}]
    for status in ("completed", "incomplete"):
        kept = cached_after(_response(status, out), [USER])
        assert kept == CachedResponse("resp_2", [USER, *out])


def test_failed_responses_are_not_kept() -> None:
    assert cached_after(_response("failed", []), [USER]) is None


# --------------------------------------------------------------------------- warmup


def test_warmup_is_a_complete_response_without_output() -> None:
    tool = {"type": "function", "name": "f", "parameters": {"type": "object"}}
    request = parse_create_request({"model": "sim-echo", "input": [], "tools": [tool]})
    events = [event for batch in warmup_events(request, "resp_0") for event in batch]
    assert [e["type"] for e in events] == [
        "response.created",
        "response.in_progress",
        "response.completed",
    ]
    final = validate_stream(events)
    assert final["output"] == []
    assert final["previous_response_id"] == "resp_0"
    assert final["usage"]["total_tokens"] == 0
    assert final["tools"][0]["name"] == "f"


# --------------------------------------------------------------------------- the setting


def test_time_limit_setting() -> None:
    assert BridgeSettings.from_options({}).limits.websocketMaxSeconds == 3600
    options = {"limits": {"websocketMaxSeconds": 2.5}}
    assert BridgeSettings.from_options(options).limits.websocketMaxSeconds == 2.5
    with pytest.raises(ValidationError):
        BridgeSettings.from_options({"limits": {"websocketMaxSeconds": 0}})


def test_time_limit_flag(capsys: pytest.CaptureFixture[str]) -> None:
    args = _parser().parse_args(["serve", "--websocket-max-seconds", "90"])
    assert args.websocket_max_seconds == 90.0
    assert _parser().parse_args(["serve"]).websocket_max_seconds is None
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(SystemExit):
            _parser().parse_args(["serve", "--websocket-max-seconds", bad])
        assert "positive number of seconds" in capsys.readouterr().err


def test_the_error_schema_check_is_not_vacuous() -> None:
    good = error_event(ApiError(400, "bad"))
    for broken in (
        {**good, "status": "400"},
        {k: v for k, v in good.items() if k != "status"},
        {**good, "error": {"message": "no code"}},
        {**good, "type": "response.error"},
    ):
        with pytest.raises(AssertionError):
            validate_websocket_error(broken)
