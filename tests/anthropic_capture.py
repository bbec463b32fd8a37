"""A stand-in for the Anthropic API that records what a client sends (a test helper).

`capture_server()` runs an aiohttp server on 127.0.0.1 in a thread of its own (the client
under test, such as the Claude Code CLI, is usually run with a blocking subprocess call), and
records every request: method, path with query, headers (credentials redacted, their presence
kept) and the JSON body. It answers like the API, with as little as a client accepts:

* `POST /v1/messages`: a model named in `unknown_models` gets the API's 404
  `not_found_error`. Otherwise, when the last user message holds a `tool_result`, the answer
  is the text `done`; when the request offers a tool named `Bash` and the last user message
  mentions `tool_trigger`, the answer is a `tool_use` of `Bash` with `{"command": COMMAND}`;
  else the text `reply_text`. With `thinking` set, a thinking block (text and signature)
  comes first. `"stream": true` gets SSE events, else one Message object.
* `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, N from the body's size.
* `GET /v1/models`: a list of three models.
* anything else: 404 `not_found_error`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from anthropic_replies import (
    Answer,
    as_events,
    as_message,
    error_body,
    sse_frame,
    text_answer,
    tool_use_answer,
    with_thinking,
)
from request_recording import RecordingServer
from thread_server import serving

COMMAND = "echo hi > out.txt"
DONE = "done"
THINKING_SIGNATURE = "Y2FwdHVyZS1zaWduYXR1cmU="  # opaque to clients: echoed back as is
LISTED_MODELS = (
    ("claude-opus-4-7", "Claude Opus 4.7"),
    ("claude-sonnet-4-6", "Claude Sonnet 4.6"),
    ("claude-haiku-4-5-20251001", "Claude Haiku 4.5"),
)


@dataclass
class CaptureServer(RecordingServer):
    """What the server answers (the constructor's arguments) and what it recorded."""

    reply_text: str = "hello from the capture server"
    tool_trigger: str = "out.txt"
    unknown_models: frozenset[str] = frozenset()
    thinking: str | None = None  # when set, every answer starts with this thinking block

    def messages_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.recorded() if r["path"].split("?")[0] == "/v1/messages"]

    def choose_answer(self, body: dict[str, Any]) -> Answer:
        answer = self._answer(body)
        if self.thinking is None:
            return answer
        return with_thinking(answer, self.thinking, THINKING_SIGNATURE)

    def _answer(self, body: dict[str, Any]) -> Answer:
        last_user = _last_user_content(body.get("messages"))
        if any(block.get("type") == "tool_result" for block in last_user):
            return text_answer(DONE)
        tool_names = {
            tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)
        }
        texts = " ".join(str(block.get("text", "")) for block in last_user)
        if "Bash" in tool_names and self.tool_trigger in texts:
            return tool_use_answer("Bash", {"command": COMMAND})
        return text_answer(self.reply_text)

    # ----------------------------------------------------------------------- handlers

    async def messages(self, request: web.Request) -> web.StreamResponse:
        body = await self.record_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return _error(400, "invalid_request_error", "model: Field required")
        model = body["model"]
        if model in self.unknown_models:
            return _error(404, "not_found_error", f"model: {model}")
        answer = self.choose_answer(body)
        input_tokens = len(json.dumps(body)) // 4
        if not body.get("stream"):
            return web.json_response(as_message(answer, model, input_tokens))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for event in as_events(answer, model, input_tokens):
            await response.write(sse_frame(event))
        await response.write_eof()
        return response

    async def count_tokens(self, request: web.Request) -> web.Response:
        body = await self.record_json(request)
        return web.json_response({"input_tokens": max(1, len(json.dumps(body)) // 4)})

    async def models(self, request: web.Request) -> web.Response:
        self._record(request, None)
        data = [
            {
                "type": "model",
                "id": model_id,
                "display_name": name,
                "created_at": "2026-01-01T00:00:00Z",
                "lifecycle": "active",
            }
            for model_id, name in LISTED_MODELS
        ]
        return web.json_response(
            {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
        )

    async def anything_else(self, request: web.Request) -> web.Response:
        """Recorded with its body as JSON (Claude Code's stray requests are JSON too)."""
        await self.record_json(request)
        return self.not_found(f"{request.method} {request.path}: not found")

    def not_found(self, message: str) -> web.Response:
        return _error(404, "not_found_error", message)

    def app(self) -> web.Application:
        return self.routed_app(
            web.post("/v1/messages", self.messages),
            web.post("/v1/messages/count_tokens", self.count_tokens),
            web.get("/v1/models", self.models),
        )


def _last_user_content(messages: Any) -> list[dict[str, Any]]:
    """The last user message's content as blocks (a plain string becomes one text block)."""
    if not isinstance(messages, list):
        return []
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return [{"type": "text", "text": content}]
            if isinstance(content, list):
                return [block for block in content if isinstance(block, dict)]
            return []
    return []


def _error(status: int, error_type: str, message: str) -> web.Response:
    return web.json_response(error_body(error_type, message), status=status)


@contextlib.contextmanager
def capture_server(**settings: Any) -> Iterator[CaptureServer]:
    """A running CaptureServer(**settings); stopped when the block ends, however it ends."""
    server = CaptureServer(**settings)
    with serving(server.app(), "anthropic-capture") as url:
        server.base_url = url
        yield server
