"""Issue 31: which path a Gemini body takes through the real route, and today's answer for
every body the fast path cannot vouch for (snake_case or unknown keys, values pydantic coerces,
anything over a limit); the fast path's own depth checks, exactly at the limit.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_gemini_fast_body import CAPTURES, LIMITS, MODEL, PNG, capture_body, exact_outcome, planned

from bridge.app import create_app
from bridge.core.backend import ChatRequest, ModelInfo, ResponsePart, TextPart
from bridge.core.limits import Limits
from bridge.gemini import body as gemini_body
from bridge.gemini.body import fast_request
from bridge.settings import BridgeSettings


class Recording:
    """A stand-in editor that records what it is asked (the route is what is tested)."""

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    async def list_models(self) -> list[ModelInfo]:
        return [MODEL]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text) // 4

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.requests.append(request)
        yield [TextPart(value="ok")]


async def post(limits: Limits, raw: bytes) -> tuple[int, Any, list[ChatRequest], dict[str, int]]:
    """Status, JSON answer, editor requests and the paths taken for one `:generateContent`."""
    editor = Recording()
    app = create_app(editor, BridgeSettings(limits=limits))
    paths = dict(gemini_body.taken)
    async with TestClient(TestServer(app)) as client:
        response = await client.post(
            "/v1beta/models/sim-echo:generateContent",
            data=raw,
            headers={"Content-Type": "application/json"},
        )
        answer = await response.json()
    taken = {path: gemini_body.taken[path] - paths[path] for path in paths}
    return response.status, answer, editor.requests, taken


async def test_an_ordinary_body_takes_the_fast_path_through_the_route() -> None:
    status, answer, requests, taken = await post(LIMITS, capture_body(CAPTURES[-1]))
    assert status == 200, answer
    assert taken == {"fast": 1, "exact": 0}
    assert len(requests) == 1


def camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(word.title() for word in rest)


SNAKE = {
    "contents": [
        {
            "role": "user",
            "parts": [{"text": "hi", "inline_data": {"mime_type": "image/png", "data": PNG}}],
        }
    ],
    "system_instruction": {"parts": [{"text": "sys"}]},
    "generation_config": {"max_output_tokens": 5, "stop_sequences": ["X"]},
}


def camel_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {camel(key): camel_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [camel_keys(item) for item in value]
    return value


async def test_snake_case_keys_take_the_exact_path_and_mean_what_camel_case_does() -> None:
    status, answer, snake_requests, taken = await post(LIMITS, json.dumps(SNAKE).encode())
    assert status == 200, answer
    assert taken == {"fast": 0, "exact": 1}
    status, answer, camel_requests, taken = await post(
        LIMITS, json.dumps(camel_keys(SNAKE)).encode()
    )
    assert status == 200, answer
    assert taken == {"fast": 1, "exact": 0}
    assert [r.model_dump() for r in snake_requests] == [r.model_dump() for r in camel_requests]


DEEP = "[" * 150 + "]" * 150
TEXT = '{"contents":[{"parts":[{"text":"hi"}]}]'


@pytest.mark.parametrize(
    ("raw", "limits", "status", "code", "param"),
    [
        # Accepted by the exact path only: unknown keys, values pydantic coerces.
        (TEXT + ',"newField":{"a":1}}', LIMITS, 200, None, None),
        (TEXT[:-4] + ',"videoMetadata":{}}]}]}', LIMITS, 200, None, None),
        (TEXT + ',"generationConfig":{"temperature":"0.5","topK":true}}', LIMITS, 200, None, None),
        # What the fast path never reads is still checked: nesting, numbers, UTF-8.
        (TEXT + ',"newField":' + DEEP + "}", LIMITS, 400, "nesting_too_deep", "newField"),
        (TEXT[:-4] + ',"x":' + DEEP + "}]}]}", LIMITS, 400, "nesting_too_deep", "contents"),
        (TEXT + ',"newField":1e999}', LIMITS, 400, "invalid_value", "newField"),
        (TEXT + ',"newField":"\udcff"}', LIMITS, 400, "invalid_json", None),
        # Limits the fast path checks itself.
        (
            '{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":'
            + DEEP
            + "}}}]}]}",
            LIMITS,
            400,
            "nesting_too_deep",
            "contents",
        ),
        (TEXT + ',"tools":' + DEEP + "}", LIMITS, 400, "nesting_too_deep", "tools"),
        (
            TEXT + ',"generationConfig":{"responseJsonSchema":' + DEEP + "}}",
            LIMITS,
            400,
            "nesting_too_deep",
            "generationConfig",
        ),
        (
            '{"contents":[' + ",".join(['{"parts":[{"text":"a"}]}'] * 6) + "]}",
            Limits(maxInputItems=5),
            400,
            "array_above_max_length",
            "contents",
        ),
        (
            TEXT + ',"tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"}]}]}',
            Limits(maxTools=1),
            400,
            "array_above_max_length",
            "tools",
        ),
        (TEXT + "}", Limits(maxJsonDepth=8), 200, None, None),
        ('{"contents":null}', LIMITS, 400, "missing_required_parameter", "contents"),
        ("[]", LIMITS, 400, "invalid_json", None),
    ],
)
async def test_odd_bodies_take_the_exact_path_and_get_todays_answer(
    raw: str, limits: Limits, status: int, code: str | None, param: str | None
) -> None:
    data = raw.encode("utf-8", "surrogateescape")
    got_status, answer, _, taken = await post(limits, data)
    assert taken == {"fast": 0, "exact": 1}
    assert got_status == status, answer
    if status == 400:  # the route's 400 is the exact path's, naming the same field
        expected = exact_outcome(data, limits)
        assert expected[2:4] == (code, param)
        error = answer["error"]
        assert error["message"] == expected[4]
        fields = [v["field"] for d in error.get("details", []) for v in d["fieldViolations"]]
        assert fields == ([param] if param else [])


def nested(levels: int) -> Any:
    """An object `levels` deep: {"a": {"a": ... {}}}."""
    value: Any = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


PLACES: dict[str, Callable[[Any], dict[str, Any]]] = {
    "call args": lambda value: {
        "contents": [
            {"parts": [{"text": "x"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": value}}]},
        ]
    },
    "response": lambda value: {
        "contents": [{"parts": [{"functionResponse": {"name": "f", "response": value}}]}]
    },
    "system call args": lambda value: {
        "contents": [{"parts": [{"text": "x"}]}],
        "systemInstruction": {"parts": [{"functionCall": {"name": "f", "args": value}}]},
    },
    "tool config": lambda value: {
        "contents": [{"parts": [{"text": "x"}]}],
        "toolConfig": {"functionCallingConfig": value},
    },
    "safety settings": lambda value: {
        "contents": [{"parts": [{"text": "x"}]}],
        "safetySettings": value,
    },
    "schema": lambda value: {
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": value},
    },
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("depth", [9, 10, 12])
def test_the_fast_path_takes_free_form_values_exactly_up_to_the_depth_limit(
    place: str, depth: int
) -> None:
    limits = Limits(maxJsonDepth=depth)
    for levels in range(1, depth):
        raw = json.dumps(PLACES[place](nested(levels))).encode()
        too_deep = exact_outcome(raw, limits)[2] == "nesting_too_deep"
        fast = fast_request(raw, limits)
        assert (fast is None) == too_deep, (levels, exact_outcome(raw, limits))
        if fast is not None:
            assert planned(fast) == exact_outcome(raw, limits)
