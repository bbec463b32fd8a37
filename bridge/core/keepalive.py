"""Keepalive ticks: a signal each time the model has been silent for a while.

A slow first token (a model that thinks for a minute, a consent dialog in the editor) leaves
the stream quiet; clients and proxies give up on an idle connection. An SSE comment line
would keep proxies happy but not Codex, which times out between *parsed events*: so each
tick becomes a `keepalive` event (`bridge.responses.events`), numbered in the response's sequence,
that every Responses client skips.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import TypeVar

T = TypeVar("T")


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
