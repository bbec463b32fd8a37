"""`parse_completion_request` + `plan_completion`: options, tools, formats, stops, the 400s."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.chat.plan import (
    JUSTIFICATION,
    CompletionPlan,
    parse_completion_request,
    plan_completion,
)
from bridge.core.backend import ChatTool, ModelInfo, TextPart
from bridge.core.errors import ApiError

MODEL = ModelInfo(id="sim-echo", maxInputTokens=100_000)


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], **extra}


def plan(**extra: Any) -> CompletionPlan:
    return plan_completion(parse_completion_request(body(**extra)), MODEL)


def error(raw: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        plan_completion(parse_completion_request(raw), MODEL)
    assert caught.value.status == 400
    assert caught.value.body()["error"]["message"]
    return caught.value


def test_a_minimal_request() -> None:
    got = plan()
    assert got.model == "gpt-4o" and got.chat.model == "sim-echo"
    assert got.stream is False and got.include_usage is False
    assert got.stop_sequences == [] and got.parallel_tool_calls is True
    assert got.output_format is None
    assert got.chat.modelOptions == {}
    assert got.chat.tools == [] and got.chat.toolMode == "auto"
    assert got.chat.justification == JUSTIFICATION
    assert [m.role for m in got.chat.messages] == ["user"]
    assert got.chat.messages[0].content == [TextPart(value="hi")]


def test_stream_and_usage() -> None:
    got = plan(stream=True, stream_options={"include_usage": True})
    assert got.stream is True and got.include_usage is True
    # Usage comes in a last chunk of a stream only: without a stream there is no chunk.
    assert plan(stream=False, stream_options={"include_usage": True}).include_usage is False
    assert plan(stream=True, stream_options={"include_usage": False}).include_usage is False


@pytest.mark.parametrize(
    ("extra", "limit"),
    [
        ({"max_tokens": 50}, 50),
        ({"max_completion_tokens": 70}, 70),
        ({"max_tokens": 50, "max_completion_tokens": 70}, 70),
    ],
)
def test_max_tokens_become_max_output_tokens(extra: dict[str, Any], limit: int) -> None:
    assert plan(**extra).chat.modelOptions == {"maxOutputTokens": limit}


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"model": ""}, "model"),
        ({"model": 3}, "model"),
        ({"messages": []}, "messages"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"max_completion_tokens": "9"}, "max_completion_tokens"),
        ({"stream": "yes"}, "stream"),
        ({"stream_options": {"include_usage": 1}}, "stream_options.include_usage"),
    ],
)
def test_bad_basics_name_their_param(extra: dict[str, Any], param: str) -> None:
    assert error(body(**extra)).param == param


@pytest.mark.parametrize("missing", ["model", "messages"])
def test_missing_required(missing: str) -> None:
    raw = body()
    del raw[missing]
    got = error(raw)
    assert got.param == missing and got.code == "missing_required_parameter"


def test_a_body_that_is_no_object() -> None:
    assert error([1, 2]).code == "invalid_json"


def test_function_tools_are_offered() -> None:
    tool = {
        "type": "function",
        "function": {"name": "f", "description": "F.", "parameters": {"type": "object"}},
    }
    got = plan(tools=[tool])
    assert got.chat.tools == [ChatTool(name="f", description="F.", inputSchema={"type": "object"})]
