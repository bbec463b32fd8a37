"""What every capture server in the tests keeps: the requests it got, secrets redacted."""

from __future__ import annotations

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

    def _record(self, request: web.Request, body: Any) -> None:
        headers = {
            name.lower(): REDACTED if name.lower() in SECRET_HEADERS else value
            for name, value in request.headers.items()
        }
        entry = {"method": request.method, "path": request.path_qs, "headers": headers}
        entry["body"] = body
        with self._lock:
            self.requests.append(entry)
