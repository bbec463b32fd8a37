"""Bounds on writing one answer to a client that may have stopped reading.

A client that keeps its socket open but reads nothing makes every write wait forever once
the socket buffers are full, holding its model slot and its editor request. Each write of a
stream must complete within `limits.writeTimeoutSeconds`, and the stream as a whole within
`limits.totalTimeoutSeconds` (plus a moment to write its final event): past either, the
connection is aborted, which ends the response, frees the slot and cancels the editor request.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable
from typing import TypeVar

from bridge.core.limits import Limits

log = logging.getLogger(__name__)

T = TypeVar("T")

# After the total timeout the model side fails the response (`editor_timeout`): this long to
# write that final event before the connection is cut.
FINAL_EVENT_GRACE_SECONDS = 1.0


class ClientStuck(ConnectionError):
    """A write did not complete in time: the client stopped reading. The connection is gone."""


class WriteBounds:
    """The time one response may spend in each write and in all of them."""

    def __init__(self, limits: Limits) -> None:
        self._loop = asyncio.get_running_loop()
        self.per_write = limits.writeTimeoutSeconds
        self.total = limits.totalTimeoutSeconds
        self._end = self._loop.time() + self.total + FINAL_EVENT_GRACE_SECONDS

    async def write(self, pending: Awaitable[T]) -> T:
        """`await pending`, or ClientStuck when it takes too long (the caller aborts)."""
        left = self._end - self._loop.time()
        bound = max(0.0, min(self.per_write, left))
        try:
            if sys.version_info >= (3, 11):
                async with asyncio.timeout(bound):
                    return await pending
            return await asyncio.wait_for(pending, bound)  # pragma: no cover - Python 3.10
        except asyncio.TimeoutError:
            if left <= self.per_write:
                reason = f"the response took longer than {self.total:g} s"
            else:
                reason = f"a write did not complete within {self.per_write:g} s"
            log.info("The client stopped reading (%s); closing its connection", reason)
            raise ClientStuck(reason) from None
