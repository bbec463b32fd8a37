"""A FAKE of GitHub Copilot's cloud API (CAPI): the aiohttp app, its routes, and `FakeCapi`,
which serves it on 127.0.0.1 from a thread for tests.

The real cloud cannot be reached here (offline, no GitHub account), so tests point Copilot
Chat at this FAKE. It serves `GET /models`, `POST /chat/completions`, `POST /responses`,
`POST /v1/messages`, `POST /auto` (and the older `POST /models/session`), and the GitHub API
routes of Copilot's sign-in (github_routes.py; an absolute-form request, as a forward proxy
passes it on, is routed by path whatever its host); everything else 404s.
Each chat request is recorded, checked as the real cloud checks it (unknown model, the rules of
the fake in rules.py, the prompt against the model's max_prompt_tokens, the control markers of
markers.py), answered by the project's simulated model (reply.py) and streamed in the
endpoint's own shape (sse_chat.py, sse_responses.py, sse_messages.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from aiohttp import web
from thread_server import serving

from fake_capi import errors, github_routes, sse_chat, sse_messages, sse_responses
from fake_capi.caching import PromptCaches
from fake_capi.catalogue import CHAT, MESSAGES, MODELS, RESPONSES, model, models_json
from fake_capi.convert_chat import from_chat
from fake_capi.convert_messages import from_messages
from fake_capi.convert_responses import from_responses
from fake_capi.markers import markers_in
from fake_capi.prompt_tokens import prompt_of
from fake_capi.recording import Recorded, Recorder
from fake_capi.reply import Turn, answer
from fake_capi.rules import pairing_refusal, schema_refusal
from fake_capi.sse import Usage
from fake_capi.upstream import BadBody, Upstream
from headless_editor.reply_steps import last_item_text

if TYPE_CHECKING:
    from headless_editor.script import Script

Writer = Callable[[web.Request, str, Turn, Usage], Awaitable[web.StreamResponse]]
_SHAPES: dict[
    str,
    tuple[
        Callable[[dict[str, Any]], Upstream], Writer, Callable[[str, Turn, Usage], dict[str, Any]]
    ],
] = {
    CHAT: (from_chat, sse_chat.stream, sse_chat.body),
    RESPONSES: (from_responses, sse_responses.stream, sse_responses.body),
    MESSAGES: (from_messages, sse_messages.stream, sse_messages.body),
}


class FakeCapi:
    """The fake cloud: `with FakeCapi() as capi:` (or `start()`/`stop()`) serves it at
    `capi.url`; `capi.requests` is what it received."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script
        self.recorder = Recorder()
        self.caches = PromptCaches()
        # What each model request was billed, oldest first: (model id, usage, tools offered).
        self.billed: list[tuple[str, Usage, int]] = []
        self._url: str | None = None
        self._serving: Any = None

    # ------------------------------------------------------------------ running
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._record], client_max_size=64 * 1024 * 1024)
        app.router.add_get("/models", self._models)
        app.router.add_post("/auto", self._auto)
        app.router.add_post("/models/session", self._session)
        for path in _SHAPES:
            app.router.add_post(path, self._chat)
        github_routes.add_routes(app)
        return app

    def start(self) -> str:
        if self._url is None:
            self._serving = serving(self.app(), "fake-capi")
            self._url = self._serving.__enter__()
        return self._url

    def stop(self) -> None:
        if self._serving is not None:
            self._serving.__exit__(None, None, None)
            self._serving = None
            self._url = None

    def __enter__(self) -> FakeCapi:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._url is None:
            raise RuntimeError("the fake CAPI is not running: call start()")
        return self._url

    # ------------------------------------------------------------------ recording
    @property
    def requests(self) -> list[Recorded]:
        return self.recorder.all()

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.recorder.all() if r.path == path]

    def last_body(self, path: str | None = None) -> Any:
        found = self.requests_to(path) if path is not None else self.recorder.all()
        if not found:
            raise AssertionError(
                f"the fake CAPI received no request{f' to {path}' if path else ''}"
            )
        return found[-1].body

    def clear(self) -> None:
        """Forget the requests received and the prompt caches."""
        self.recorder.clear()
        self.caches.clear()
        self.billed.clear()

    @web.middleware
    async def _record(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            body = None
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.recorder.add(Recorded(request.method, request.path, headers, body, raw))
        return await handler(request)

    # ------------------------------------------------------------------ routes
    async def _models(self, request: web.Request) -> web.Response:
        return web.json_response(models_json())

    async def _auto(self, request: web.Request) -> web.Response:
        """Auto mode's one call: the chat default model, with a session token."""
        chosen = next(m for m in MODELS if m.chat_default)
        return web.json_response(
            {
                "session_token": "fake-capi-session",
                "expires_at": int(time.time()) + 86400,
                "selected_model": chosen.entry(),
            }
        )

    async def _session(self, request: web.Request) -> web.Response:
        chosen = next(m for m in MODELS if m.chat_default)
        return web.json_response({
            "available_models": [m.id for m in MODELS],
            "selected_model": chosen.id,
            "session_token": "fake-capi-session",
            "expires_at": int(time.time()) + 3600,
            "discounted_costs": {m.id: 0.1 for m in MODELS},
        })  # fmt: skip

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = json.loads(await request.read() or b"null")
        if not isinstance(body, dict):
            return errors.error_json(400, "the body is not a JSON object", "invalid_request_body")
        found = model(str(body.get("model", "")))
        if found is None:
            return errors.unknown_model(str(body.get("model", "")))
        if request.path not in found.endpoints:
            return errors.error_json(
                400,
                f"model {found.id} is not supported via {request.path}",
                "unsupported_api_for_model",
            )
        convert, writer, whole = _SHAPES[request.path]
        try:
            upstream = convert(body)
        except BadBody as exc:
            return errors.error_json(400, str(exc), "invalid_request_body")
        markers = markers_in(last_item_text(upstream.request.messages))
        prompt = prompt_of(body, request.path)
        refused = self._refusal(
            markers.refuse, markers.retry_after, prompt.tokens, found.max_prompt
        )
        if refused is not None:
            return refused
        if schema_refusal(upstream.request, found.family) is not None:
            return errors.blank()
        unpaired = pairing_refusal(upstream.request, anthropic=found.family.startswith("claude"))
        if unpaired is not None:
            return errors.error_json(400, unpaired, "invalid_request_body")
        turn = answer(upstream, markers, self.script)
        cached = self.caches.bill(found.id, found.family, prompt)
        read = min(cached.read, prompt.tokens)
        written = min(cached.written, prompt.tokens - read)
        usage = Usage(
            prompt.tokens,
            read,
            cached.written,
            turn.output_tokens,
            turn.reasoning_tokens,
            found.nano_credits(prompt.tokens - read - written, read, written, turn.output_tokens),
        )
        tools = body.get("tools")
        self.billed.append((found.id, usage, len(tools) if isinstance(tools, list) else 0))
        if body.get("stream") is True:
            return await writer(request, found.id, turn, usage)
        return web.json_response(whole(found.id, turn, usage))

    @staticmethod
    def _refusal(
        marker: str | None, retry_after: int, tokens: int, limit: int
    ) -> web.Response | None:
        if marker == "400":
            return errors.bad_request()
        if marker == "400 blank":
            return errors.blank()
        if marker == "402":
            return errors.quota()
        if marker == "429":
            return errors.rate_limited(retry_after)
        if marker == "context" or tokens > limit:
            return errors.context_exceeded(max(tokens, limit + 1), limit)
        return None


@contextmanager
def running(script: Script | None = None) -> Iterator[FakeCapi]:
    """A started FakeCapi for a `with` block."""
    with FakeCapi(script) as capi:
        yield capi
