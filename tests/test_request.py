"""`parse_create_request`: what is accepted, and the 400s (with a named `param`) for the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixture_files import client_requests

from bridge.core.errors import ApiError
from bridge.responses.request import (
    CreateResponseRequest,
    CustomToolCallItem,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    MessageItem,
    SkippedItem,
    parse_create_request,
)

CLIENT_FIXTURES = client_requests()


def rejected(body: Any) -> ApiError:
    """The ApiError that parsing `body` raises (fails the test when it parses)."""
    with pytest.raises(ApiError) as info:
        parse_create_request(body)
    return info.value


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt-5", "input": "hello", **fields}


# --------------------------------------------------------------------------- stateful params


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("previous_response_id", "resp_abc123"),
        ("conversation", "conv_abc123"),
        ("conversation", {"id": "conv_abc123"}),
    ],
)
def test_state_params_are_rejected_with_a_hint(param: str, value: Any) -> None:
    error = rejected(body(**{param: value}))

    assert error.status == 400
    assert error.type == "invalid_request_error"
    assert error.code == "unsupported_parameter"
    assert error.param == param
    assert f"`{param}`" in error.message
    assert "full conversation history" in error.message
    assert "`input`" in error.message
    assert error.body() == {
        "error": {
            "message": error.message,
            "type": "invalid_request_error",
            "param": param,
            "code": "unsupported_parameter",
        }
    }


def test_null_previous_response_id_is_accepted() -> None:
    request = parse_create_request(body(previous_response_id=None, conversation=None))
    assert request.input == "hello"


def test_previous_response_id_is_rejected_before_other_checks() -> None:
    error = rejected({"previous_response_id": "resp_1", "input": [{"type": "item_reference"}]})
    assert error.param == "previous_response_id"
    assert error.code == "unsupported_parameter"


@pytest.mark.parametrize("index", [0, 2])
def test_item_reference_is_rejected_naming_its_index(index: int) -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "first"},
        {"type": "message", "role": "assistant", "content": "second"},
    ]
    items.insert(index, {"type": "item_reference", "id": "msg_123"})

    error = rejected(body(input=items))

    assert error.status == 400
    assert error.code == "unsupported_parameter"
    assert error.param == f"input[{index}]"
    assert "item_reference" in error.message
    assert "full conversation history" in error.message


# --------------------------------------------------------------------------- required params


@pytest.mark.parametrize(
    "request_body",
    [
        {"input": "hello"},
        {"model": None, "input": "hello"},
        {"model": "", "input": "hello"},
    ],
    ids=["absent", "null", "empty"],
)
def test_missing_model(request_body: dict[str, Any]) -> None:
    error = rejected(request_body)

    assert error.status == 400
    assert error.type == "invalid_request_error"
    assert error.param == "model"
    assert error.code == "missing_required_parameter"
    assert "`model`" in error.message


@pytest.mark.parametrize(
    "request_body", [{"model": "gpt-5"}, {"model": "gpt-5", "input": None}], ids=["absent", "null"]
)
def test_missing_input(request_body: dict[str, Any]) -> None:
    error = rejected(request_body)

    assert error.status == 400
    assert error.param == "input"
    assert error.code == "missing_required_parameter"


@pytest.mark.parametrize("missing", [{}, {"input": None}], ids=["absent", "null"])
def test_instructions_alone_are_a_request(missing: dict[str, Any]) -> None:
    request = parse_create_request({"model": "gpt-5", "instructions": "Say hi.", **missing})

    assert request.input == []
    assert request.instructions == "Say hi."


def test_empty_instructions_without_input_are_still_missing_input() -> None:
    error = rejected({"model": "gpt-5", "instructions": ""})
    assert error.param == "input"
    assert error.code == "missing_required_parameter"


@pytest.mark.parametrize(
    "request_body",
    [[], [{"model": "gpt-5", "input": "hi"}], "hello", "", 42, 3.5, None, True],
    ids=["empty-list", "list", "string", "empty-string", "int", "float", "null", "bool"],
)
def test_non_object_body(request_body: Any) -> None:
    error = rejected(request_body)

    assert error.status == 400
    assert error.type == "invalid_request_error"
    assert error.param is None
    assert "JSON object" in error.message


# --------------------------------------------------------------------------- leniency


def test_unknown_request_fields_are_ignored() -> None:
    request = parse_create_request(
        body(
            client_metadata={"session": "abc"},
            include=["reasoning.encrypted_content"],
            prompt_cache_retention="24h",
            service_tier="auto",
            something_new={"nested": [1, 2, 3]},
            stream=True,
            store=False,
        )
    )

    assert isinstance(request, CreateResponseRequest)
    assert request.model == "gpt-5"
    assert request.stream is True
    assert request.store is False
    assert not hasattr(request, "client_metadata")


def test_unknown_item_fields_are_ignored() -> None:
    request = parse_create_request(
        body(
            input=[
                {
                    "type": "message",
                    "id": "msg_01a200f7",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "Hi", "annotations": [], "logprobs": []}
                    ],
                },
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "status": "completed",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": '{"city": "Paris"}',
                    "parsed_arguments": {"city": "Paris"},
                },
                {
                    "type": "function_call_output",
                    "id": "fco_1",
                    "call_id": "call_1",
                    "output": "22C",
                },
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [],
                    "content": None,
                    "encrypted_content": "gAAAA...",
                },
            ]
        )
    )

    assert isinstance(request.input, list)
    message, call, output, reasoning = request.input
    assert isinstance(message, MessageItem)
    assert message.role == "assistant"
    assert not isinstance(message.content, str)
    assert message.content[0].type == "output_text"
    assert message.content[0].text == "Hi"
    assert isinstance(call, FunctionCallItem)
    assert call.call_id == "call_1"
    assert call.name == "get_weather"
    assert call.arguments == '{"city": "Paris"}'
    assert isinstance(output, FunctionCallOutputItem)
    assert output.output == "22C"
    assert isinstance(reasoning, SkippedItem)
    assert reasoning.type == "reasoning"


def test_unknown_item_types_parse_as_skipped() -> None:
    request = parse_create_request(
        body(input=[{"type": "web_search_call", "id": "ws_1", "status": "completed"}])
    )
    assert isinstance(request.input, list)
    (item,) = request.input
    assert isinstance(item, SkippedItem)
    assert item.type == "web_search_call"


@pytest.mark.parametrize("kind", [[], {}, ["message"]])
def test_an_item_type_that_is_no_string_is_a_400(kind: Any) -> None:
    # Found by schemathesis: `{"type": []}` was looked up in a set and raised TypeError (a 500).
    with pytest.raises(ApiError) as caught:
        parse_create_request(body(input=[{"type": kind}]))
    assert caught.value.status == 400
    assert caught.value.param == "input[0].type"


@pytest.mark.parametrize("role", ["user", "assistant", "system", "developer"])
def test_messages_without_type(role: str) -> None:
    request = parse_create_request(body(input=[{"role": role, "content": "text"}]))

    assert isinstance(request.input, list)
    (item,) = request.input
    assert isinstance(item, MessageItem)
    assert item.type == "message"
    assert item.role == role
    assert item.content == "text"


def test_custom_tool_items() -> None:
    request = parse_create_request(
        body(
            input=[
                {
                    "type": "custom_tool_call",
                    "id": "ctc_1",
                    "status": "completed",
                    "call_id": "call_p",
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** End Patch\n",
                },
                {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done"},
            ]
        )
    )

    assert isinstance(request.input, list)
    call, output = request.input
    assert isinstance(call, CustomToolCallItem)
    assert call.input == "*** Begin Patch\n*** End Patch\n"
    assert isinstance(output, CustomToolCallOutputItem)
    assert output.output == "Done"


# --------------------------------------------------------------------------- invalid values


@pytest.mark.parametrize(
    ("items", "param"),
    [
        (
            [
                {"role": "user", "content": "hi"},
                {"type": "function_call", "name": "f", "arguments": "{}"},
            ],
            "input[1].call_id",
        ),
        ([{"type": "function_call", "call_id": "c", "arguments": "{}"}], "input[0].name"),
        (
            [{"role": "user", "content": "hi"}, {"type": "function_call_output", "output": "x"}],
            "input[1].call_id",
        ),
        ([{"type": "function_call_output", "call_id": "c"}], "input[0].output"),
        ([{"type": "custom_tool_call", "name": "apply_patch"}], "input[0].call_id"),
        ([{"role": "robot", "content": "hi"}], "input[0].role"),
        ([{"type": "message", "role": "user"}], "input[0].content"),
        ([{"role": "user", "content": [{"text": "no type"}]}], "input[0].content[0].type"),
        (
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}}],
            "input[0].arguments",
        ),
    ],
    ids=[
        "function_call-without-call_id",
        "function_call-without-name",
        "function_call_output-without-call_id",
        "function_call_output-without-output",
        "custom_tool_call-without-call_id",
        "bad-role",
        "message-without-content",
        "content-part-without-type",
        "arguments-not-a-string",
    ],
)
def test_bad_item_names_the_param_path(items: list[dict[str, Any]], param: str) -> None:
    error = rejected(body(input=items))

    assert error.status == 400
    assert error.type == "invalid_request_error"
    assert error.code == "invalid_value"
    assert error.param == param
    assert f"`{param}`" in error.message


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"temperature": "hot"}, "temperature"),
        ({"max_output_tokens": "lots"}, "max_output_tokens"),
        ({"truncation": "sometimes"}, "truncation"),
        ({"tools": "all of them"}, "tools"),
        ({"metadata": [1, 2]}, "metadata"),
        ({"reasoning": {"effort": 5}}, "reasoning.effort"),
        ({"store": "maybe"}, "store"),
        ({"stream": "maybe"}, "stream"),
        ({"input": 5}, "input"),
    ],
    ids=lambda value: next(iter(value)) if isinstance(value, dict) else str(value),
)
def test_bad_top_level_value_names_the_param(fields: dict[str, Any], param: str) -> None:
    error = rejected(body(**fields))

    assert error.status == 400
    assert error.code == "invalid_value"
    assert error.param == param
    assert f"`{param}`" in error.message


# --------------------------------------------------------------------------- real clients


def test_client_fixtures_are_present() -> None:
    names = {path.name for path in CLIENT_FIXTURES}
    assert len(names) >= 30
    assert {"codex-patch-2.json", "py-create-1.json", "agents-run-4.json"} <= names


@pytest.mark.parametrize("path", CLIENT_FIXTURES, ids=lambda path: path.stem)
def test_client_fixture(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))

    if raw.get("previous_response_id"):
        error = rejected(raw)
        assert error.status == 400
        assert error.code == "unsupported_parameter"
        assert error.param == "previous_response_id"
        return

    request = parse_create_request(raw)
    assert request.model == raw["model"]
    if isinstance(raw["input"], str):
        assert request.input == raw["input"]
    else:
        assert isinstance(request.input, list)
        assert len(request.input) == len(raw["input"])
        for item, raw_item in zip(request.input, raw["input"], strict=True):
            assert item.type == raw_item.get("type", "message")


def test_background_is_rejected_with_a_hint() -> None:
    with pytest.raises(ApiError) as caught:
        parse_create_request({"model": "m", "input": "x", "background": True})
    error = caught.value
    assert (error.status, error.param, error.code) == (400, "background", "unsupported_parameter")
    assert "stream" in error.message
    assert parse_create_request({"model": "m", "input": "x", "background": False}).model == "m"
