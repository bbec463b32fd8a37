"""Gemini answers as Google's REST reference shows them (v1beta, lowerCamelCase proto JSON),
written by hand for the validator's tests (tests/test_gemini_validation.py): a text answer, an
answer with thinking and a function call, their streams, a count, models and errors."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

RESPONSE_ID = "AM-sample0000000000000"
MODEL = "gemini-2.5-flash"
CALL_ID = "AM-call-000000000001"
WEATHER_ARGS = {"city": "Paris", "days": 2}
SIGNATURE = "c2lnbmF0dXJl"  # base64 of "signature"


def answer(
    parts: list[dict[str, Any]], usage: dict[str, Any], finish: str = "STOP"
) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
        ],
        "usageMetadata": usage,
        "modelVersion": MODEL,
        "responseId": RESPONSE_ID,
    }


TEXT_USAGE = {"promptTokenCount": 8, "candidatesTokenCount": 4, "totalTokenCount": 12}
TEXT_ANSWER = answer([{"text": "Hello there, friend."}], TEXT_USAGE)

TOOL_USAGE = {
    "promptTokenCount": 30,
    "candidatesTokenCount": 9,
    "thoughtsTokenCount": 6,
    "totalTokenCount": 45,
    "cachedContentTokenCount": 10,
}
TOOL_ANSWER = answer(
    [
        {"text": "The user wants the weather.", "thought": True},
        {"text": "Let me look."},
        {
            "functionCall": {"id": CALL_ID, "name": "get_weather", "args": WEATHER_ARGS},
            "thoughtSignature": SIGNATURE,
        },
    ],
    TOOL_USAGE,
)
MAX_TOKENS_ANSWER = answer(
    [{"text": "Once upon"}],
    {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7},
    "MAX_TOKENS",
)


def chunk(
    parts: list[dict[str, Any]] | None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    if finish is not None:
        candidate["finishReason"] = finish
    obj: dict[str, Any] = {"candidates": [candidate], "modelVersion": MODEL}
    if usage is not None:
        obj["usageMetadata"] = copy.deepcopy(usage)
    obj["responseId"] = RESPONSE_ID
    return obj


def text_stream() -> list[dict[str, Any]]:
    return [
        chunk([{"text": "Hello"}]),
        chunk([{"text": " there,"}]),
        chunk([{"text": " friend."}], "STOP", TEXT_USAGE),
    ]


def tool_stream() -> list[dict[str, Any]]:
    """Thinking in two pieces, text, the call, then a last chunk with only the finish."""
    call = copy.deepcopy(TOOL_ANSWER["candidates"][0]["content"]["parts"][2])
    return [
        chunk([{"text": "The user wants", "thought": True}]),
        chunk([{"text": " the weather.", "thought": True}, {"text": "Let me"}]),
        chunk([{"text": " look."}, call]),
        chunk(None, "STOP", TOOL_USAGE),
    ]


def sse_body(chunks: list[dict[str, Any]], keepalive: str = "") -> str:
    """The chunks as `?alt=sse` sends them: `data: <json>` and a blank line, `keepalive`
    (blank lines) before each."""
    return "".join(f"{keepalive}data: {json.dumps(obj)}\n\n" for obj in chunks)


COUNT = {"totalTokens": 31}
MODEL_OBJ = {
    "name": f"models/{MODEL}",
    "version": "001",
    "displayName": "Gemini 2.5 Flash",
    "description": "An editor model served by Maestro Bridge.",
    "inputTokenLimit": 1_048_576,
    "outputTokenLimit": 65_536,
    "supportedGenerationMethods": ["generateContent", "countTokens"],
    "temperature": 1.0,
    "maxTemperature": 2.0,
    "topP": 0.95,
    "topK": 64,
    "thinking": True,
}
MODELS = {
    "models": [
        MODEL_OBJ,
        {**MODEL_OBJ, "name": "models/sim-echo", "displayName": "sim-echo", "thinking": False},
    ],
    "nextPageToken": "Cg1zaW0tZWNobw",
}


def error(code: int, status: str, message: str = "Something is wrong.") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


ERRORS = [
    (
        400,
        error(
            400, "INVALID_ARGUMENT", "* GenerateContentRequest.contents: contents is not specified"
        ),
    ),
    (401, error(401, "UNAUTHENTICATED")),
    (403, error(403, "PERMISSION_DENIED")),
    (404, error(404, "NOT_FOUND", "models/nope is not found for API version v1beta")),
    (413, error(413, "INVALID_ARGUMENT")),
    (429, error(429, "RESOURCE_EXHAUSTED")),
    (500, error(500, "INTERNAL")),
    (502, error(502, "UNAVAILABLE")),
    (503, error(503, "UNAVAILABLE")),
    (504, error(504, "DEADLINE_EXCEEDED")),
]
DETAILED_ERROR = {
    "error": {
        **error(400, "INVALID_ARGUMENT")["error"],
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{"field": "contents", "description": "required"}],
            }
        ],
    }
}


def broken(sample: Any, change: Callable[[Any], object]) -> Any:
    """A deep copy of `sample` with `change` applied (the change may return anything)."""
    copied = copy.deepcopy(sample)
    change(copied)
    return copied
