"""SSE keepalive: a comment line while the model is silent, so clients do not time out.

A slow first token (a model that thinks for a minute, a consent dialog in the editor) leaves
the stream quiet; some clients and proxies give up on an idle connection. An SSE comment line
(`: keepalive`) is ignored by every SSE parser, so it changes nothing for the client's events.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import TypeVar

T = TypeVar("T")

KEEPALIVE = b": keepalive\n\n"


async def with_keepalive(
    source: AsyncGenerator[T, None], interval: float
) -> AsyncGenerator[T | None, None]:
    """The items of `source`, and None each time `interval` seconds pass without one.

    `interval` <= 0 turns the ticks off. Closing this generator closes `source` (and so
    cancels the editor's request), also while it is waiting for its next item.
    """
    pending: asyncio.Task[T] | None = None

    async def next_item() -> T:
        return await source.__anext__()

    try:
        while True:
            if interval <= 0:
                try:
                    item = await source.__anext__()
                except StopAsyncIteration:
                    return
                yield item
                continue
            if pending is None:
                pending = asyncio.ensure_future(next_item())
            done, _ = await asyncio.wait({pending}, timeout=interval)
            if not done:
                yield None
                continue
            finished, pending = pending, None
            try:
                item = finished.result()
            except StopAsyncIteration:
                return
            yield item
    finally:
        if pending is not None:
            pending.cancel()
            # The source stops at its await (running its own cleanup); its end is not news.
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending
        await source.aclose()
