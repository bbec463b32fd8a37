"""Helpers of the Gemini end-to-end tests: the google-genai SDK's client on a bridge, plain HTTP
(what the bridge put on the wire: SSE lines, keepalive blank lines) and comparisons."""

from __future__ import annotations

from typing import Any

from conftest import BridgeServer
from gemini_validation import SseBody, check_stream, parse_sse, validate_answer
from google import genai
from google.genai import types
from plain_http import Reply, post

HELLO = "Hello from the SDK!"
ECHO = "You said: Hello from the SDK!"


def make_client(server: BridgeServer, api_key: str = "unused") -> genai.Client:
    """The SDK on the bridge's root URL (it adds `/v1beta`), with no retries: a 5xx or a 429
    must fail the test, not be papered over."""
    options = types.HttpOptions(
        base_url=server.root_url,
        retry_options=types.HttpRetryOptions(attempts=1),
        timeout=30_000,  # milliseconds
    )
    return genai.Client(api_key=api_key, http_options=options)


def as_json(response: Any) -> dict[str, Any]:
    """An SDK object as the wire JSON (camelCase) it was parsed from, nulls left out."""
    data: dict[str, Any] = response.model_dump(
        mode="json",
        by_alias=True,
        exclude_none=True,
        exclude={"sdk_http_response", "automatic_function_calling_history"},
    )
    return data


def model_url(server: BridgeServer, model: str, action: str, query: str = "") -> str:
    return f"{server.root_url}/v1beta/models/{model}:{action}{query}"


def raw_stream(server: BridgeServer, model: str, body: dict[str, Any]) -> tuple[Reply, SseBody]:
    """POST a stream with `alt=sse`; its chunks, each checked (tests/gemini_validation.py)."""
    reply = post(model_url(server, model, "streamGenerateContent", "?alt=sse"), body)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    return reply, parse_sse(reply.text)


def checked(response: types.GenerateContentResponse) -> types.GenerateContentResponse:
    """The SDK's answer, validated as the JSON it came from."""
    validate_answer(as_json(response))
    return response


def folded(chunks: list[types.GenerateContentResponse]) -> dict[str, Any]:
    """The SDK's chunks, checked one by one and across, folded into one answer."""
    return check_stream([as_json(chunk) for chunk in chunks])


def script_rule(match: str, *reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"match": match, "reply": list(reply), **extra}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def pause(seconds: float) -> dict[str, Any]:
    return {"type": "pause", "seconds": seconds}
