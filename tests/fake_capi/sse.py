"""Server-sent events of a FAKE of GitHub Copilot's cloud (CAPI), shared by the three shapes
(the real cloud cannot be reached here): one frame at a time, a pause where the reply asks,
and the usage numbers every shape reports at the end.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Usage:
    prompt: int  # every input token, cached or not
    cached: int  # served from the cache
    written: int  # written to the cache (Anthropic)
    output: int
    reasoning: int
    nano_credits: int | None = None  # what the FAKE bills (`copilot_usage.total_nano_aiu`)

    def copilot_usage(self) -> dict[str, Any]:
        """CAPI's `copilot_usage` beside the usage, when the model has prices."""
        if self.nano_credits is None:
            return {}
        return {"copilot_usage": {"total_nano_aiu": self.nano_credits}}


def new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(12)}"


async def open_stream(request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(
        status=200,
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "x-request-id": new_id(""),
        },
    )
    await response.prepare(request)
    return response


async def send(response: web.StreamResponse, data: Any, event: str | None = None) -> None:
    head = f"event: {event}\n" if event is not None else ""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    await response.write(f"{head}data: {text}\n\n".encode())
    await asyncio.sleep(0)


async def wait(seconds: float) -> None:
    await asyncio.sleep(seconds)


def drop(request: web.Request) -> None:
    """Cut the connection, as a failing upstream does mid-stream."""
    if request.transport is not None:
        request.transport.abort()
