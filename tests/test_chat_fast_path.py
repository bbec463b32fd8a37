"""The Chat Completions body's two paths: msgspec's fast path and today's exact path.

`before` is the request path as it was (strict JSON, the shape limits, the pydantic models and
the old conversion, kept in tests/chat_convert_before.py); `after` is the path the route now
takes (bridge/chat/body.py: the fast path, else the exact path, then one conversion over the
Structs). Every body, well-formed or not, must give the same plan (the same editor request,
byte for byte as the editor gets it) or the same 400. Ordinary client bodies must take the
fast path, and odd ones get today's answer from a real `serve` too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chat_convert_before
import pytest
import requests
from chat_http import HELLO, make_client
from conftest import BridgeServer, running_bridge_server
from hypothesis import HealthCheck, given, settings
from test_chat_completions_request_fuzz import bodies

from bench import conversation
from bench.dialect_bodies import encoded
from bridge.chat import protocol, wire
from bridge.chat.body import fast_request
from bridge.chat.exact import check_roles, parse_completion_request
from bridge.chat.options import log_ignored, model_options, refuse_unsupported
from bridge.chat.plan import JUSTIFICATION, CompletionPlan, plan_completion
from bridge.chat.response_format import requested_format
from bridge.chat.stop import stop_sequences
from bridge.chat.tools import plan_tools
from bridge.chat.wire import IGNORED_KEYS
from bridge.core import strict_json
from bridge.core.backend import ModelInfo
from bridge.core.chat_request import editor_chat
from bridge.core.errors import ApiError, invalid_request
from bridge.core.limits import Limits
from bridge.core.request_limits import check_request_shape
from bridge.core.validation_errors import json_object, validated
from lsp.chat_json import chat_params_json

MODEL = ModelInfo(id="sim-echo", maxInputTokens=1_000_000)
LIMITS = Limits()
FIXTURES = Path(__file__).parent / "fixtures"
Outcome = tuple[Any, ...]


def _read_json(raw: bytes) -> Any:
    """bridge/http/json_body.read_json, without the request around the bytes."""
    try:
        return strict_json.decode(raw)
    except strict_json.JsonInputError as exc:
        raise invalid_request(exc.message, param=exc.param, code=exc.code) from None
    except RecursionError:
        raise invalid_request(
            "The request body is nested too deeply to be read.", code="invalid_json"
        ) from None


def _old_plan(request: protocol.CompletionRequest) -> CompletionPlan:
    """plan_completion as it was: the same steps, the old conversion."""
    refuse_unsupported(request)  # type: ignore[arg-type]  # reads the same attributes
    tools = plan_tools(request.tools, request.tool_choice)
    fmt = requested_format(request.response_format)
    stops = stop_sequences(request.stop)
    messages = chat_convert_before.editor_messages(request.messages)
    if not messages:
        raise invalid_request(
            "The messages hold nothing the model can read.", param="messages", code="invalid_value"
        )
    options = model_options(request)  # type: ignore[arg-type]
    chat = editor_chat(MODEL, messages, tools.tools, tools.mode, options, fmt, JUSTIFICATION)
    stream = bool(request.stream)
    return CompletionPlan(
        chat=chat,
        model=request.model,
        stream=stream,
        include_usage=stream
        and request.stream_options is not None
        and request.stream_options.include_usage is True,
        stop_sequences=stops,
        parallel_tool_calls=request.parallel_tool_calls is not False,
        output_format=fmt,
    )


def _summary(plan: CompletionPlan) -> Outcome:
    chat = plan.chat
    return (
        "plan",
        plan.model,
        plan.stream,
        plan.include_usage,
        plan.stop_sequences,
        plan.parallel_tool_calls,
        plan.output_format,
        chat.messages,
        chat.toolCallRequired,
        chat.clientToolNames,
        chat_params_json("c1", 64, chat),  # what the editor gets, byte for byte
    )


def _error(exc: ApiError) -> Outcome:
    return ("error", exc.status, exc.message, exc.param, exc.code)


def before(raw: bytes, limits: Limits = LIMITS) -> Outcome:
    try:
        body = _read_json(raw)
        check_request_shape(body, limits, items="messages")
        body = json_object(body, ("model", "messages"))
        check_roles(body["messages"])
        request = validated(body, protocol.CompletionRequest)
        log_ignored(body)
        return _summary(_old_plan(request))
    except ApiError as exc:
        return _error(exc)


def after(raw: bytes, limits: Limits = LIMITS) -> tuple[bool, Outcome]:
    """(whether the fast path took the body, the outcome)."""
    try:
        request = fast_request(raw, limits)
        fast = request is not None
        if request is None:  # the exact path, as bridge/chat/body.py takes it
            body = _read_json(raw)
            check_request_shape(body, limits, items="messages")
            request = parse_completion_request(body)
        return fast, _summary(plan_completion(request, MODEL))
    except ApiError as exc:
        return fast, _error(exc)


def same(raw: bytes, limits: Limits = LIMITS) -> bool:
    """Asserts both paths agree on `raw`; whether the fast path took it."""
    fast, got = after(raw, limits)
    assert got == before(raw, limits)
    return fast


def dumps(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


# --------------------------------------------------------------------------- ordinary bodies


def _aider_bodies() -> list[Any]:
    return [json.loads(p.read_text())["body"] for p in sorted((FIXTURES / "aider").glob("*.json"))]


BENCH_SIZES = [1, 2, 3, 5, 17, 200, 1000]


@pytest.mark.parametrize("items", BENCH_SIZES)
def test_bench_histories_take_the_fast_path_with_the_same_plan(items: int) -> None:
    assert same(encoded("chat", conversation.history(items)))


def test_a_bulky_history_takes_the_fast_path_with_the_same_plan() -> None:
    assert same(encoded("chat", conversation.bulky(200_000)))


@pytest.mark.parametrize("index", [0, 1])
def test_aider_requests_take_the_fast_path_with_the_same_plan(index: int) -> None:
    assert same(dumps(_aider_bodies()[index]))


PNG_URL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
ORDINARY: dict[str, dict[str, Any]] = {
    "sdk tools and options": {
        "model": "sim-echo",
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
            {"role": "system", "content": "Answer in French."},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG_URL}}]},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "The weather.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_completion_tokens": 100,
        "temperature": 0,
        "top_p": 1,
        "stop": ["END", "END"],
        "seed": 7,
        "user": "someone",
        "parallel_tool_calls": False,
        "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "object"}}},
    },
    "custom and legacy calls": {
        "model": "sim-echo",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}, {"type": "refusal", "refusal": "no"}],
                "refusal": "not that",
                "tool_calls": [
                    {"id": "c1", "type": "custom", "custom": {"name": "patch", "input": "x"}},
                    {"id": "c2", "type": "custom", "function": {"name": "f", "arguments": "[1]"}},
                ],
                "function_call": {"name": "g", "arguments": "{}"},
            },
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "done"}]},
            {"role": "function", "name": "g", "content": "out"},
            {"role": "function", "name": "h"},
            {"role": "user", "content": [{"type": "file", "file": {"file_data": "aGk="}}]},
        ],
    },
    "an answer sent back as the SDK dumps it": {
        "model": "sim-echo",
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "hello",
                "refusal": None,
                "annotations": [],
                "reasoning_content": "The user greets.",
                "function_call": None,
                "tool_calls": None,
            },
            {"role": "user", "content": "bye"},
        ],
    },
    "late system and developer text": {
        "model": "sim-echo",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "bye"},
        ],
    },
    "empty contents": {
        "model": "sim-echo",
        "messages": [
            {"role": "tool", "tool_call_id": "x", "content": ""},
            {"role": "system", "content": ""},
            {"role": "system", "content": "first"},
            {"role": "tool", "tool_call_id": "y", "content": []},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": ""},
            {"role": "user", "content": "hi", "name": "me"},
        ],
    },
}


@pytest.mark.parametrize("name", list(ORDINARY))
def test_ordinary_bodies_take_the_fast_path_with_the_same_plan(name: str) -> None:
    assert same(dumps(ORDINARY[name]))


def test_every_ignored_key_is_declared_and_checked_on_the_fast_path() -> None:
    fields = set(wire.CompletionRequest.__struct_fields__)
    assert set(IGNORED_KEYS) <= fields
    assert set(IGNORED_KEYS) <= set(wire.CompletionRequest.FREE_FORM)
    assert fields - set(protocol.CompletionRequest.model_fields) == set(IGNORED_KEYS)


# --------------------------------------------------------------------------- odd bodies

SIMPLE = {"model": "sim-echo", "messages": [{"role": "user", "content": "hi"}]}


def _with(**extra: Any) -> dict[str, Any]:
    return {**SIMPLE, **extra}


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


ODD: dict[str, bytes] = {
    "not json": b"{",
    "not an object": b"[1]",
    "invalid utf-8 in an unknown key": dumps(SIMPLE)[:-1] + b',"x":"\xff"}',
    "a utf-8 surrogate in an unknown key": dumps(SIMPLE)[:-1] + b',"x":"\xed\xa0\x80"}',
    "a lone surrogate escape": dumps(SIMPLE)[:-1] + b',"x":"\\ud800"}',
    "an infinite number in an unknown key": dumps(SIMPLE)[:-1] + b',"x":1e400}',
    "an infinite number in an ignored key": dumps(_with(seed=1))[:-2] + b"1e400}",
    "a huge integer in an unknown key": dumps(SIMPLE)[:-1] + b',"x":' + b"9" * 5000 + b"}",
    "NaN": dumps(SIMPLE)[:-1] + b',"temperature":NaN}',
    "deep in an unknown key": dumps(_with(x=_deep(150))),
    "deep in an ignored key": dumps(_with(metadata=_deep(150))),
    "deep in tools": dumps(_with(tools=[_deep(120)])),
    "deep in a message's unknown key": dumps(
        {"model": "m", "messages": [{"role": "user", "content": "x", "y": _deep(150)}]}
    ),
    "annotations listed": dumps(
        _with(messages=[{"role": "assistant", "content": "x", "annotations": [{"a": 1}]}])
    ),
    "a reasoning content that is not text": dumps(
        _with(messages=[{"role": "assistant", "content": "x", "reasoning_content": [_deep(150)]}])
    ),
    "an unknown top-level key": dumps(_with(reasoning={"effort": "low"})),
    "an unknown key in a message": dumps(
        {"model": "m", "messages": [{"role": "user", "content": "x", "cache_control": {}}]}
    ),
    "an extra stream option": dumps(_with(stream_options={"include_usage": True, "x": 1})),
    "a number as a string": dumps(_with(temperature="0.5")),
    "a number as a bool": dumps(_with(temperature=True)),
    "temperature out of range": dumps(_with(temperature=3)),
    "a float max_tokens": dumps(_with(max_tokens=1.0)),
    "max_tokens 0": dumps(_with(max_tokens=0)),
    "a huge max_tokens": dumps(_with(max_tokens=10**30)),
    "an empty model": dumps(_with(model="")),
    "a null model": dumps(_with(model=None)),
    "no messages": dumps(_with(messages=[])),
    "an unknown role": dumps(_with(messages=[{"role": "robot", "content": "x"}])),
    "audio input": dumps(
        _with(messages=[{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}])
    ),
    "an unknown part": dumps(
        _with(messages=[{"role": "user", "content": [{"type": "video", "video": 1}, "x"]}])
    ),
    "an unknown part with text": dumps(
        _with(
            messages=[
                {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "v"}]},
                {"role": "assistant", "content": [{"type": "w"}]},
            ]
        )
    ),
    "a call without its function": dumps(
        _with(messages=[{"role": "assistant", "tool_calls": [{"id": "a", "type": "custom"}]}])
    ),
    "n 2": dumps(_with(n=2)),
    "audio output": dumps(_with(audio={"voice": "x"})),
    "functions": dumps(_with(functions=[])),
    "gemini declarations": dumps(_with(tools=[{"functionDeclarations": [{"name": "f"}] * 600}])),
    "too many tools": dumps(_with(tools=[{"type": "function", "function": {"name": "f"}}] * 513)),
    "duplicate keys": b'{"model":"m","messages":[],"messages":[{"role":"user","content":"x"}]}',
    "a byte order mark": b"\xef\xbb\xbf" + dumps(SIMPLE),
    "utf-16": json.dumps(SIMPLE).encode("utf-16"),
    "a negative zero temperature": dumps(SIMPLE)[:-1] + b',"temperature":-0.0}',
    "an exponent temperature": dumps(SIMPLE)[:-1] + b',"temperature":1E-1}',
}


@pytest.mark.parametrize("name", list(ODD))
def test_odd_bodies_get_todays_answer(name: str) -> None:
    same(ODD[name])


@pytest.mark.parametrize(
    "name",
    [
        "invalid utf-8 in an unknown key",
        "an infinite number in an unknown key",
        "deep in an unknown key",
        "deep in a message's unknown key",
        "an unknown key in a message",
        "annotations listed",
        "a reasoning content that is not text",
    ],
)
def test_what_msgspec_would_skip_unchecked_goes_to_the_exact_path(name: str) -> None:
    assert fast_request(ODD[name], LIMITS) is None


SMALL = Limits(maxInputItems=3, maxTools=2, maxJsonDepth=8, maxJsonValues=1000)


@pytest.mark.parametrize(
    "body",
    [
        _with(messages=[{"role": "user", "content": "x"}] * 3),
        _with(messages=[{"role": "user", "content": "x"}] * 4),
        _with(tools=[{"type": "function", "function": {"name": "f"}}] * 2),
        _with(tools=[{"type": "function", "function": {"name": "f"}}] * 3),
        _with(tools=[{"type": "function", "function": {"name": "f", "parameters": _deep(6)}}]),
        _with(tools=[{"type": "function", "function": {"name": "f", "parameters": _deep(7)}}]),
        _with(metadata=_deep(6)),
        _with(metadata=_deep(7)),
        _with(messages=[{"role": "user", "content": [{"type": "text", "text": "x" * 3000}]}]),
        _with(messages=[{"role": "user", "content": "x"}] * 2, stop=["a"] * 400),
    ],
)
def test_bodies_at_the_limits_get_todays_answer(body: dict[str, Any]) -> None:
    same(dumps(body), SMALL)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies)
def test_any_body_gets_the_same_plan_or_400_on_both_paths(body: dict[str, Any]) -> None:
    same(dumps(body))
    same(json.dumps(body).encode())  # ASCII with escapes, as Python clients send


# --------------------------------------------------------------------------- through serve


@pytest.fixture(scope="module")
def server() -> Iterator[BridgeServer]:
    with running_bridge_server() as running:
        yield running


@pytest.mark.parametrize(
    "name",
    [
        "invalid utf-8 in an unknown key",
        "an infinite number in an unknown key",
        "deep in an unknown key",
        "audio input",
        "a call without its function",
        "temperature out of range",
        "an unknown role",
    ],
)
def test_odd_bodies_get_todays_400_from_serve(server: BridgeServer, name: str) -> None:
    expected = before(ODD[name])
    assert expected[0] == "error"
    response = requests.post(
        f"{server.base_url}/chat/completions",
        data=ODD[name],
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    error = response.json()["error"]
    assert (response.status_code, error["message"], error["param"], error["code"]) == expected[1:]


def test_a_bench_history_is_answered_by_serve(server: BridgeServer) -> None:
    body = json.loads(encoded("chat", conversation.history(200)))
    body["model"], body["stream"] = "sim-echo", False
    response = requests.post(f"{server.base_url}/chat/completions", json=body, timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["content"]


EXACT_PATH_LINE = "Chat Completions body read on the exact path"


def test_the_sdk_sending_back_its_answer_takes_the_fast_path_in_serve() -> None:
    """The openai SDK, resending the answer it parsed (the common tool loop), is read on the
    fast path by a real `serve` (its debug log names each body read on the exact path)."""
    with running_bridge_server(env={"MAESTRO_BRIDGE_LOG_LEVEL": "DEBUG"}) as debug_server:
        client = make_client(debug_server)
        messages: list[Any] = [{"role": "developer", "content": "Be brief."}, *HELLO]
        answer = client.chat.completions.create(model="sim-echo", messages=messages)
        messages += [answer.choices[0].message, {"role": "user", "content": "Again?"}]
        again = client.chat.completions.create(model="sim-echo", messages=messages, seed=1)
        assert again.choices[0].message.content
        assert EXACT_PATH_LINE not in debug_server.stderr_text()
        # The line is there when the exact path reads a body.
        odd = requests.post(
            f"{debug_server.base_url}/chat/completions", data=ODD["annotations listed"], timeout=30
        )
        assert odd.status_code == 200, odd.text
        assert EXACT_PATH_LINE in debug_server.stderr_text()
