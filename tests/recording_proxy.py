"""A recording proxy: forwards every request to a real bridge as it came and keeps it on the
way (secrets redacted), so a test can say what a real client asked for (which model, which
tools) while the bridge answers it for real."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from request_recording import RecordingServer
from thread_server import serving

_HOP_HEADERS = {"host", "content-length", "transfer-encoding", "connection"}


@dataclass
class RecordingProxy(RecordingServer):
    """Forwards every request to `target` as it came, recording it on the way."""

    target: str = ""

    async def anything_else(self, request: web.Request) -> web.Response:
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = {"<not json>": raw.decode(errors="replace")}
        self._record(request, body)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        async with (
            aiohttp.ClientSession(auto_decompress=False) as session,
            session.request(
                request.method, self.target + request.path_qs, data=raw, headers=headers
            ) as upstream,
        ):
            body = await upstream.read()
            kept = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_HEADERS}
            return web.Response(status=upstream.status, body=body, headers=kept)

    def bodies(self, path_prefix: str) -> list[Any]:
        """The JSON bodies of the recorded requests whose path starts with `path_prefix`."""
        return [r["body"] for r in self.recorded() if r["path"].startswith(path_prefix)]

    def messages_bodies(self) -> list[dict[str, Any]]:
        return self.bodies("/v1/messages?")


@contextlib.contextmanager
def recording_proxy(target: str) -> Iterator[RecordingProxy]:
    """A proxy to `target` (a root URL) for the `with` block; its `base_url` is its root."""
    proxy = RecordingProxy(target=target)
    with serving(proxy.routed_app(), "recording-proxy") as url:
        proxy.base_url = url
        yield proxy
