"""A stand-in for the OpenAI Chat Completions API that records what a client sends (a test
helper, for clients such as Aider).

`chat_capture_server(replies=...)` runs an aiohttp server on 127.0.0.1 in a thread of its own
(the client under test is run with a blocking subprocess call) and records every request:
method, path with query, headers (credentials redacted, their presence kept) and the JSON
body. It answers with as little as a client accepts:

* `POST /v1/chat/completions` (and `/chat/completions`): the text of the first `(pattern,
  text)` of `replies` whose pattern is found in the last user message's text (Aider ends its
  messages with a `system` reminder after the user's), else `default_text`;
  `"stream": true` gets `chat.completion.chunk` SSE events ending in `data: [DONE]` (with a
  usage chunk when `stream_options.include_usage`), else one `chat.completion` object.
* `GET /v1/models`: one model, `capture-model`.
* anything else: 404 with the OpenAI error envelope.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from request_recording import RecordingServer
from thread_server import serving

COMPLETION_ID = "chatcmpl-capture"
CREATED = 1_770_000_000


@dataclass
class ChatCaptureServer(RecordingServer):
    """What the server answers (the constructor's arguments) and what it recorded."""

    replies: list[tuple[str, str]] = field(default_factory=list)
    default_text: str = "hello from the capture server"

    def completion_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.recorded() if r["path"].endswith("/chat/completions")]

    def answer_text(self, body: dict[str, Any]) -> str:
        last = last_user_text(body.get("messages"))
        for pattern, text in self.replies:
            if re.search(pattern, last):
                return text
        return self.default_text

    # ----------------------------------------------------------------------- handlers

    async def completions(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()  # aiohttp keeps it: record_json reads the same bytes
        body = await self.record_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "model: required")
        text = self.answer_text(body)
        usage = {
            "prompt_tokens": max(1, len(raw) // 4),
            "completion_tokens": max(1, len(text) // 4),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        model = body["model"]
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return web.json_response(_envelope("chat.completion", model, [choice], usage))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        deltas = [{"role": "assistant", "content": ""}, {"content": text}, {}]
        for index, delta in enumerate(deltas):
            finish = "stop" if index == len(deltas) - 1 else None
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            await response.write(_frame(_envelope("chat.completion.chunk", model, [choice])))
        options = body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            await response.write(_frame(_envelope("chat.completion.chunk", model, [], usage)))
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    async def models(self, request: web.Request) -> web.Response:
        self._record(request, None)
        model = {"id": "capture-model", "object": "model", "created": CREATED, "owned_by": "me"}
        return web.json_response({"object": "list", "data": [model]})

    def not_found(self, message: str) -> web.Response:
        return _error(404, message)

    def app(self) -> web.Application:
        return self.routed_app(
            web.post("/v1/chat/completions", self.completions),
            web.post("/chat/completions", self.completions),
            web.get("/v1/models", self.models),
        )


def last_user_text(messages: Any) -> str:
    """The last user message's text: its string content, or its text parts joined."""
    users = [
        message
        for message in (messages if isinstance(messages, list) else [])
        if isinstance(message, dict) and message.get("role") == "user"
    ]
    if not users:
        return ""
    content = users[-1].get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def _envelope(
    kind: str, model: str, choices: list[dict[str, Any]], usage: dict[str, int] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": COMPLETION_ID,
        "object": kind,
        "created": CREATED,
        "model": model,
        "choices": choices,
    }
    if usage is not None:
        body["usage"] = usage
    return body


def _frame(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def _error(status: int, message: str) -> web.Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return web.json_response({"error": error}, status=status)


@contextlib.contextmanager
def chat_capture_server(**settings: Any) -> Iterator[ChatCaptureServer]:
    """A running ChatCaptureServer(**settings); stopped when the block ends, however it ends."""
    server = ChatCaptureServer(**settings)
    with serving(server.app(), "chat-capture") as url:
        server.base_url = url + "/v1"
        yield server
