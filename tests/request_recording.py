"""What every capture server in the tests keeps: the requests it got, secrets redacted; and
what each does with a path it does not serve: records it and answers its dialect's 404."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# Every header a client may carry its key in, whatever the dialect.
SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization", "cookie"}
)
REDACTED = "<redacted>"


@dataclass
class RecordingServer:
    """The base of a capture server: it runs in a thread of its own (thread_server.py), so
    its record is read and written under a lock."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""  # set once it runs, in the form its clients take (with /v1 or not)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def recorded(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.requests)

    async def record_json(self, request: web.Request) -> Any:
        """Records the request with its body parsed (None when empty; a body that is no JSON
        as `{"<not json>": its text}`) and returns that body."""
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = {"<not json>": raw.decode(errors="replace")}
        self._record(request, body)
        return body

    def routed_app(self, *routes: web.RouteDef) -> web.Application:
        """An app with `routes`, then `anything_else` for every other method and path."""
        app = web.Application()
        app.add_routes(routes)
        app.router.add_route("*", "/{tail:.*}", self.anything_else)
        return app

    async def anything_else(self, request: web.Request) -> web.Response:
        """Recorded with its body as text (None when empty), answered with `not_found`."""
        self._record(request, (await request.read()).decode(errors="replace") or None)
        return self.not_found(f"{request.method} {request.path}: not found")

    def not_found(self, message: str) -> web.Response:
        """The dialect's 404 (each capture server answers in its own error envelope)."""
        raise NotImplementedError

    def _record(self, request: web.Request, body: Any) -> None:
        headers = {
            name.lower(): REDACTED if name.lower() in SECRET_HEADERS else value
            for name, value in request.headers.items()
        }
        entry = {"method": request.method, "path": request.path_qs, "headers": headers}
        entry["body"] = body
        with self._lock:
            self.requests.append(entry)
