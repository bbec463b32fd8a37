"""Helpers of the Gemini end-to-end tests: the google-genai SDK's client on a bridge, plain HTTP
(what the bridge put on the wire: SSE lines, keepalive blank lines) and comparisons."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from conftest import BridgeServer
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


@dataclass
class SseBody:
    chunks: list[dict[str, Any]] = field(default_factory=list)
    keepalives: int = 0  # blank lines between events beyond the one that ends each event
    other: list[str] = field(default_factory=list)  # lines that are neither: must stay empty


def parse_sse(text: str) -> SseBody:
    """Google's SSE: `data: <json>` lines, each event ended by a blank line; a keepalive is an
    extra blank line (never an SSE comment: Google's SDKs would stall on one)."""
    body = SseBody()
    ended = True  # no event open: a blank line now is a keepalive
    for line in text.split("\n"):
        if line.startswith("data: "):
            body.chunks.append(json.loads(line[len("data: ") :]))
            ended = False
        elif line == "":
            if ended:
                body.keepalives += 1
            ended = True
        else:
            body.other.append(line)
    body.keepalives -= 1 if text.endswith("\n") else 0  # the split's last, empty piece
    assert not body.other, body.other
    return body


def raw_stream(server: BridgeServer, model: str, body: dict[str, Any]) -> tuple[Reply, SseBody]:
    reply = post(model_url(server, model, "streamGenerateContent", "?alt=sse"), body)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/event-stream")
    return reply, parse_sse(reply.text)


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer without what differs between two runs: the response id."""
    return {key: value for key, value in answer.items() if key != "responseId"}


def fold_chunks(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The one answer a stream of chunks describes, folded the way a client does: parts in
    order, adjacent texts of the same kind joined, the last finishReason and usage."""
    parts: list[dict[str, Any]] = []
    finish: str | None = None
    usage: dict[str, Any] | None = None
    for chunk in chunks:
        assert "error" not in chunk, chunk
        candidate = chunk["candidates"][0]
        for part in candidate["content"]["parts"]:
            same = parts and set(parts[-1]) == set(part) and "text" in part
            if same and parts[-1].get("thought") == part.get("thought"):
                parts[-1] = {**parts[-1], "text": parts[-1]["text"] + part["text"]}
            elif part != {"text": ""} or not parts:
                parts.append(dict(part))
        finish = candidate.get("finishReason") or finish
        usage = chunk.get("usageMetadata") or usage
    answer: dict[str, Any] = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
        ],
        "modelVersion": chunks[0]["modelVersion"],
    }
    if usage is not None:
        answer["usageMetadata"] = usage
    return answer


def script_rule(match: str, *reply: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"match": match, "reply": list(reply), **extra}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def pause(seconds: float) -> dict[str, Any]:
    return {"type": "pause", "seconds": seconds}
