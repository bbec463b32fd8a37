"""Issue 31: a Gemini body read by msgspec (the fast path) is planned exactly as the exact path
(`read_json` + `check_request_shape` + pydantic) plans it, and the conversion from Structs gives
the messages the conversion before issue 31 gave (tests/gemini_convert_before.py).

Every captured Gemini CLI body and every bench body takes the fast path. Through the route, and
for the bodies that take the exact path: tests/test_gemini_fast_route.py.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import gemini_convert_before as before
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_gemini_request_fuzz import bodies

from bench import conversation
from bench.dialect_bodies import encoded
from bridge.core import strict_json
from bridge.core.backend import ChatMessage, ModelInfo
from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.gemini.body import exact_request, fast_request
from bridge.gemini.convert import editor_messages
from bridge.gemini.fields import validated
from bridge.gemini.plan import plan_generate
from bridge.gemini.protocol import GenerateContentRequest
from bridge.gemini.wire import GenerateContentRequest as WireRequest
from bridge.settings import BridgeSettings
from lsp.chat_json import chat_params_json

LIMITS = BridgeSettings().limits
MODEL = ModelInfo(id="sim-echo", maxInputTokens=10_000_000)
CAPTURES = sorted((Path(__file__).parent / "fixtures" / "gemini_cli").glob("*-*.json"))
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
URL_SAFE_PNG = base64.urlsafe_b64encode(b"\x89PNG\r\n\x1a\n" + b"\xfb\xff" * 8).decode()

Outcome = tuple[Any, ...]


def planned(request: WireRequest) -> Outcome:
    """What the editor would be sent (its JSON) and what the answer side reads, or the 400."""
    try:
        plan = plan_generate(request, "gemini-x", MODEL, True)
    except ApiError as error:
        return ("error", error.status, error.code, error.param, error.message)
    chat = chat_params_json("c1", 64, plan.chat)
    return ("plan", chat, plan.stop_sequences, plan.include_thoughts, plan.output_format)


def exact_outcome(raw: bytes, limits: Limits = LIMITS) -> Outcome:
    try:
        request = exact_request(strict_json.decode(raw), limits)
    except strict_json.JsonInputError as error:
        return ("error", 400, error.code, error.param, error.message)
    except ApiError as error:
        return ("error", error.status, error.code, error.param, error.message)
    return planned(request)


def old_messages(raw: bytes) -> list[ChatMessage] | tuple[Any, ...] | None:
    """The conversion before issue 31, from the exact path's pydantic models (None when the
    body does not validate)."""
    try:
        model = validated(strict_json.decode(raw), GenerateContentRequest)
    except (ApiError, strict_json.JsonInputError, AttributeError):
        return None
    try:
        return before.editor_messages(model.contents, model.system_instruction)
    except ApiError as error:
        return (error.status, error.param, error.message)


def new_messages(request: WireRequest) -> list[ChatMessage] | tuple[Any, ...]:
    try:
        return editor_messages(request.contents, request.system_instruction)
    except ApiError as error:
        return (error.status, error.param, error.message)


def assert_same_as_the_exact_path(raw: bytes) -> None:
    fast = fast_request(raw, LIMITS)
    assert fast is not None, "an ordinary body takes the fast path"
    assert planned(fast) == exact_outcome(raw)
    assert new_messages(fast) == old_messages(raw)


def capture_body(path: Path) -> bytes:
    return json.dumps(json.loads(path.read_text())["body"]).encode()


@pytest.mark.parametrize("path", CAPTURES, ids=lambda path: path.stem)
def test_every_gemini_cli_capture_takes_the_fast_path_with_the_same_plan(path: Path) -> None:
    assert_same_as_the_exact_path(capture_body(path))


@pytest.mark.parametrize(
    "items",
    [
        conversation.history(1),
        conversation.history(2),
        conversation.history(200),
        conversation.history(4000),
        conversation.bulky(500_000),
    ],
    ids=["1", "2", "200", "4000", "bulky"],
)
def test_bench_bodies_take_the_fast_path_with_the_same_plan(items: list[Any]) -> None:
    assert_same_as_the_exact_path(encoded("gemini", items))


def image(data: str = PNG, mime: str = "image/png") -> dict[str, Any]:
    return {"inlineData": {"mimeType": mime, "data": data}}


# Every kind of part and option the conversion reads, in bodies a client may send.
RICH: dict[str, dict[str, Any]] = {
    "parts": {
        "contents": [
            {"parts": [{"text": "look"}, image(), image(URL_SAFE_PNG)]},
            {"role": "user", "parts": [image("aGVsbG8=", "text/plain"), image("aGk", "")]},
            {"role": "user", "parts": [{"fileData": {"fileUri": "gs://b/f", "mimeType": "x/y"}}]},
            {
                "role": "model",
                "parts": [
                    {"text": "thinking", "thought": True},
                    {"text": "ok", "thoughtSignature": "c2ln"},
                    image(),
                    {"fileData": {"fileUri": "gs://b/g"}},
                    {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
                    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
                    {"executableCode": {"language": "LANGUAGE_UNSPECIFIED"}},
                    {"codeExecutionResult": {}},
                ],
            },
            {"role": "USER", "parts": [{"text": "next"}]},
        ],
        "systemInstruction": {"parts": [{"text": "sys"}, image(), {"text": "x", "thought": True}]},
    },
    "calls": {
        "contents": [
            {"parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "f", "args": {"a": [1, {"b": None}]}}},
                    {"functionCall": {"name": "f"}},
                    {"functionCall": {"id": "c9", "name": "g", "args": {}}},
                ],
            },
            {"role": "model", "parts": [{"functionCall": {"id": "c10", "name": "h"}}]},
            {
                "role": "function",
                "parts": [
                    {"functionResponse": {"name": "f", "response": {"output": "one"}}},
                    {"functionResponse": {"id": "c9", "name": "g", "response": {"error": "no"}}},
                    {"functionResponse": {"name": "f", "response": {"a": 1, "b": "ü"}}},
                    {
                        "functionResponse": {
                            "id": "c10",
                            "name": "h",
                            "response": {"output": "seen"},
                            "parts": [image(), {"fileData": {"fileUri": "gs://x"}}],
                        }
                    },
                    {"functionResponse": {"id": "c9", "name": "g", "response": {"output": 2}}},
                    {"functionResponse": {"id": "zz", "name": "q"}},
                ],
            },
            {"role": "tool", "parts": [{"text": "and"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c9", "name": "g"}}]},
            {"role": "user", "parts": [{"text": "stop"}]},
        ],
        "systemInstruction": "Be brief.",
    },
    "options": {
        "model": "models/x",
        "contents": [{"role": "user", "parts": [{"text": "json please"}]}],
        "generationConfig": {
            "temperature": 1,
            "topP": 0.5,
            "topK": 40,
            "candidateCount": 1,
            "maxOutputTokens": 100,
            "stopSequences": ["END", "", "END"],
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
            "responseModalities": ["text"],
            "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 5000},
            "seed": 7,
            "presencePenalty": 0.5,
            "frequencyPenalty": -0.25,
            "responseLogprobs": False,
            "mediaResolution": "MEDIA_RESOLUTION_LOW",
            "routingConfig": {"autoMode": {}},
        },
        "safetySettings": [{"category": "HARM_CATEGORY_X", "threshold": "BLOCK_NONE"}],
        "labels": {"a": "b"},
        "tools": [
            {
                "functionDeclarations": [
                    {"name": "f", "description": "F", "parameters": {"type": "OBJECT"}},
                    {"name": "g", "parametersJsonSchema": {"type": "OBJECT"}},
                ]
            },
            {"googleSearch": {}},
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["g"]}},
    },
    "enum": {
        "contents": [{"parts": [{"text": "pick"}]}],
        "generationConfig": {
            "responseMimeType": "text/x.enum",
            "responseJsonSchema": {"type": "STRING", "enum": ["a", "b"]},
            "thinkingConfig": {"thinkingLevel": "low"},
        },
    },
    # Bodies the plan refuses: the fast path answers the same 400s.
    "bad base64": {"contents": [{"parts": [image("%%")]}]},
    "bad role": {"contents": [{"role": "system", "parts": [{"text": "x"}]}]},
    "nothing to read": {"contents": [{"role": "model", "parts": [{"text": "x"}]}]},
    "two candidates": {
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"candidateCount": 2},
    },
    "cached": {"contents": [{"parts": [{"text": "x"}]}], "cachedContent": "c/1"},
}


@pytest.mark.parametrize("raw", RICH.values(), ids=RICH.keys())
def test_every_part_and_option_takes_the_fast_path_with_the_same_plan(raw: dict[str, Any]) -> None:
    assert_same_as_the_exact_path(json.dumps(raw).encode())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies)
def test_any_body_the_fast_path_reads_is_planned_as_the_exact_path_plans_it(
    raw: dict[str, Any],
) -> None:
    data = json.dumps(raw).encode()
    fast = fast_request(data, LIMITS)
    if fast is not None:
        assert planned(fast) == exact_outcome(data)
        assert new_messages(fast) == old_messages(data)
    else:
        messages = old_messages(data)
        if messages is not None:  # the exact path's Structs convert as the models did
            request = exact_request(strict_json.decode(data), LIMITS)
            assert new_messages(request) == messages


def _without_none(value: dict[str, Any]) -> dict[str, Any]:
    return {key: item for key, item in value.items() if item is not None}


IDS = st.sampled_from([None, "", "c1", "c2", "c3"])
NAMES = st.sampled_from(["f", "g"])
SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=3)
RESPONSES = st.none() | st.sampled_from(
    [{}, {"output": "o"}, {"error": "e"}, {"output": 1}, {"a": [1]}]
)
# Only well-typed parts: every body takes the fast path, so the pairing of calls and responses
# (ids or none, names, turns) is compared with the old conversion in many shapes.
WELL_TYPED_PART = st.one_of(
    st.builds(lambda text: {"text": text}, st.text(max_size=3)),
    st.builds(lambda text: {"text": text, "thought": True}, st.text(max_size=3)),
    st.builds(
        lambda i, n, a: {"functionCall": _without_none({"id": i, "name": n, "args": a})},
        IDS,
        NAMES,
        st.none() | st.dictionaries(st.text(max_size=2), SCALARS, max_size=2),
    ),
    st.builds(
        lambda i, n, r, media: {
            "functionResponse": _without_none({"id": i, "name": n, "response": r, "parts": media})
        },
        IDS,
        NAMES,
        RESPONSES,
        st.none()
        | st.lists(st.just(image()) | st.just({"fileData": {"fileUri": "u"}}), max_size=2),
    ),
    st.just(image()),
    st.just(image("aGk", "text/plain")),
    st.just({"fileData": {"fileUri": "gs://f"}}),
    st.just({"executableCode": {"code": "1"}, "codeExecutionResult": {"output": "1"}}),
)
WELL_TYPED_CONTENT = st.fixed_dictionaries(
    {"parts": st.lists(WELL_TYPED_PART, max_size=4)},
    optional={"role": st.sampled_from(["user", "model", "function", "tool", "MODEL"])},
)
WELL_TYPED = st.fixed_dictionaries(
    {"contents": st.lists(WELL_TYPED_CONTENT, max_size=6)},
    optional={"systemInstruction": st.text(max_size=3) | WELL_TYPED_CONTENT},
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(WELL_TYPED)
def test_well_typed_bodies_take_the_fast_path_and_convert_as_before(raw: dict[str, Any]) -> None:
    assert_same_as_the_exact_path(json.dumps(raw).encode())
