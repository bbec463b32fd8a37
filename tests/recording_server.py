"""A stand-in bridge for the configure tests' real clients: it lists models at GET /v1/models
and records (path, Authorization, model) of every other request, answering it 404. Enough to
see what a client sends where, without a model behind it."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Recorder(BaseHTTPRequestHandler):
    models: list[str]
    requests: list[dict[str, Any]]

    def do_GET(self) -> None:
        if self.path.startswith("/v1/models"):
            data = [
                {"id": model_id, "object": "model", "max_input_tokens": 128000}
                for model_id in self.models
            ]
            self._answer(200, {"object": "list", "data": data})
        else:
            self._record()

    def do_POST(self) -> None:
        self._record()

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = None
        self.requests.append(
            {
                "path": self.path,
                "authorization": self.headers.get("Authorization"),
                "model": body.get("model") if isinstance(body, dict) else None,
            }
        )
        error = {"type": "not_found_error", "message": "recorded, not answered"}
        self._answer(404, {"type": "error", "error": error})

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def recording_server(models: list[str]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(root URL, the requests it got) of a recording server on 127.0.0.1."""
    requests: list[dict[str, Any]] = []

    class Bound(_Recorder):  # the models and requests of this server alone
        pass

    Bound.models = models
    Bound.requests = requests
    server = ThreadingHTTPServer(("127.0.0.1", 0), Bound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
