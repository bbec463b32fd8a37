"""A stand-in for Google's Generative Language API (v1beta) that records what a client sends
(a test helper, for Gemini CLI).

`gemini_capture_server()` runs an aiohttp server on 127.0.0.1 in a thread of its own (the CLI
under test is run with a blocking subprocess call) and records every request: method, path
with query, headers (credentials redacted, their presence kept) and the JSON body. It answers
with as little as Gemini CLI accepts:

* `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent` (`?alt=sse`: SSE
  `data:` lines, else one JSON array of the chunks). A request that asks for JSON
  (`generationConfig.responseMimeType: application/json`, the CLI's router) gets the first
  of `router_answers` that has every property its schema requires. Otherwise, when the last
  user content holds a `functionResponse`, the text `after_tool`; when the request offers
  `run_shell_command` and the last user text mentions `tool_trigger`, a `functionCall` of it
  with `{"command": COMMAND}` (no id: the CLI makes one up); else `reply_text`. With `delay`
  seconds, a stream first waits that long, writing `keepalive_frame` (a blank line, what the
  bridge sends while the model is silent) every `keepalive` seconds. With `stream_error`,
  the streamed parts come without a finishReason, followed by `data: {"error": ...}`.
* `POST /v1beta/models/{model}:countTokens`: `{"totalTokens": N}`, N from the body's size.
* `GET /v1beta/models` and `GET /v1beta/models/{model}`: models named after the request.
* anything else: 404 in Google's error envelope.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from aiohttp import web
from request_recording import RecordingServer
from thread_server import serving

COMMAND = "echo hi > out.txt"
SHELL_TOOL = "run_shell_command"
AFTER_TOOL = "done"
# The CLI's two routers: a complexity score for Gemini 3 main models, else a model choice.
SCORE_ANSWER = {"complexity_reasoning": "A simple task.", "complexity_score": 10}
CHOICE_ANSWER = {"reasoning": "A simple task.", "model_choice": "flash"}
RESPONSE_ID = "capture-response"


@dataclass
class GeminiCaptureServer(RecordingServer):
    """What the server answers (the constructor's arguments) and what it recorded."""

    reply_text: str = "hello from the capture server"
    after_tool: str = AFTER_TOOL
    tool_trigger: str = "out.txt"
    router_answers: list[dict[str, Any]] = field(
        default_factory=lambda: [SCORE_ANSWER, CHOICE_ANSWER]
    )
    delay: float = 0.0
    keepalive: float = 1.0
    keepalive_frame: bytes = b"\n"  # a blank line, as the bridge sends
    # When set, a stream fails after its text: the parts without a finishReason, then this
    # error as one `data:` line (how an error after the first chunk reaches the client).
    stream_error: dict[str, Any] | None = None

    def generate_requests(self) -> list[dict[str, Any]]:
        """The generateContent and streamGenerateContent requests, in order."""
        return [r for r in self.recorded() if "generateContent" in r["path"].split("?")[0]]

    def choose_parts(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json":
            return [{"text": json.dumps(self.router_answer(config))}]
        last = last_user_parts(body.get("contents"))
        if any("functionResponse" in part for part in last):
            return [{"text": self.after_tool}]
        texts = " ".join(str(part.get("text", "")) for part in last)
        if SHELL_TOOL in offered_functions(body) and self.tool_trigger in texts:
            call = {"name": SHELL_TOOL, "args": {"command": COMMAND}}
            return [{"functionCall": call}]
        return [{"text": self.reply_text}]

    def router_answer(self, config: dict[str, Any]) -> dict[str, Any]:
        """The first of `router_answers` with the properties the request's schema requires."""
        schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        required = set(schema.get("required") or [])
        for answer in self.router_answers:
            if required <= set(answer):
                return answer
        return self.router_answers[0]

    # ----------------------------------------------------------------------- handlers

    async def model_action(self, request: web.Request) -> web.StreamResponse:
        model, _, action = unquote(request.match_info["model_action"]).rpartition(":")
        raw = await request.read()  # aiohttp keeps it: record_json reads the same bytes
        body = await self.record_json(request)
        if not isinstance(body, dict):
            return error_response(400, "INVALID_ARGUMENT", "the body must be a JSON object")
        if action == "countTokens":
            return web.json_response({"totalTokens": max(1, len(raw) // 4)})
        if action not in ("generateContent", "streamGenerateContent"):
            return error_response(404, "NOT_FOUND", f"{action}: no such method")
        answer = self.answer(body, model.removeprefix("models/"), len(raw))
        if action == "generateContent":
            return web.json_response(answer)
        return await self.stream(request, answer)

    def answer(self, body: dict[str, Any], model: str, size: int) -> dict[str, Any]:
        parts = self.choose_parts(body)
        prompt_tokens = max(1, size // 4)
        output_tokens = max(1, len(json.dumps(parts)) // 4)
        usage = {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": prompt_tokens + output_tokens,
        }
        candidate = {
            "content": {"role": "model", "parts": parts},
            "finishReason": "STOP",
            "index": 0,
        }
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": RESPONSE_ID,
        }

    async def stream(self, request: web.Request, answer: dict[str, Any]) -> web.StreamResponse:
        sse = request.query.get("alt") == "sse"
        content_type = "text/event-stream" if sse else "application/json"
        response = web.StreamResponse(headers={"Content-Type": content_type})
        await response.prepare(request)
        waited = 0.0
        while waited < self.delay:
            step = min(self.keepalive, self.delay - waited)
            await asyncio.sleep(step)
            waited += step
            if sse and waited < self.delay:
                await response.write(self.keepalive_frame)
        if sse and self.stream_error is not None:
            del answer["candidates"][0]["finishReason"], answer["usageMetadata"]
            await response.write(sse_line(answer))
            await response.write(sse_line({"error": self.stream_error}))
        elif sse:
            await response.write(sse_line(answer))
        else:
            await response.write(json.dumps([answer]).encode())
        await response.write_eof()
        return response

    async def list_models(self, request: web.Request) -> web.Response:
        self._record(request, None)
        return web.json_response({"models": [model_entry("gemini-capture")]})

    async def get_model(self, request: web.Request) -> web.Response:
        self._record(request, None)
        return web.json_response(model_entry(unquote(request.match_info["model"])))

    def not_found(self, message: str) -> web.Response:
        return error_response(404, "NOT_FOUND", message)

    def app(self) -> web.Application:
        return self.routed_app(
            web.post("/v1beta/models/{model_action}", self.model_action),
            web.get("/v1beta/models", self.list_models),
            web.get("/v1beta/models/{model}", self.get_model),
        )


def last_user_parts(contents: Any) -> list[dict[str, Any]]:
    """The parts of the last content that is the user's (a missing role is the user's)."""
    users = [
        content
        for content in (contents if isinstance(contents, list) else [])
        if isinstance(content, dict) and content.get("role", "user") == "user"
    ]
    parts = users[-1].get("parts") if users else None
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def offered_functions(body: dict[str, Any]) -> set[str]:
    """The names of the function declarations the request offers."""
    names: set[str] = set()
    for tool in body.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or [] if isinstance(tool, dict) else []:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                names.add(declaration["name"])
    return names


def sse_line(payload: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(payload)}\r\n\r\n".encode()


def model_entry(model: str) -> dict[str, Any]:
    name = model.removeprefix("models/")
    return {
        "name": f"models/{name}",
        "displayName": name,
        "inputTokenLimit": 1_048_576,
        "outputTokenLimit": 65_536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    }


def error_response(code: int, status: str, message: str) -> web.Response:
    return web.json_response(
        {"error": {"code": code, "message": message, "status": status}}, status=code
    )


@contextlib.contextmanager
def gemini_capture_server(**settings: Any) -> Iterator[GeminiCaptureServer]:
    """A running GeminiCaptureServer(**settings); stopped when the block ends, however it
    ends. Its base_url is the root (Gemini CLI adds `/v1beta/...`)."""
    server = GeminiCaptureServer(**settings)
    with serving(server.app(), "gemini-capture") as url:
        server.base_url = url
        yield server
