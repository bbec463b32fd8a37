"""Request bytes held at once, across every request: `limits.maxConcurrentBodyBytes`.

A body is read whole before its handler runs (bridge/http/body_deadline.py), and its handler
keeps it, and what is made of it (the decoded JSON, the converted conversation, the message to
the editor: several times its size), until it answers. Forty 30 MiB bodies at once took the
language server past 4 GB and held its event loop for seconds. So each request reserves its
`Content-Length` before one byte of its body is read; a body without one (chunked), or one
that decodes bigger than it said (`Content-Encoding`), reserves more as it grows. Past the
budget the request gets 429 with Retry-After, in its dialect's envelope, and its body is never
kept (aiohttp reads and drops the rest, so that the client sees the answer). What a request
reserved is given back when its handler ends, however it ends. A WebSocket `response.create`
frame (read whole by aiohttp, up to `limits.maxBodyBytes`) reserves its size before it is
decoded, until its turn ends; past the budget it gets an error event (429) instead.
"""

from __future__ import annotations

from aiohttp import web

from bridge.core.errors import ApiError
from bridge.core.limits import Limits
from bridge.core.request_limits import RETRY_AFTER_SECONDS


class BodyBudget:
    """Bytes reserved by the requests being received or handled."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0

    @classmethod
    def for_limits(cls, limits: Limits) -> BodyBudget:
        # Never below one body of the largest size allowed: that one must always fit alone.
        return cls(max(limits.maxConcurrentBodyBytes, limits.maxBodyBytes))

    def reserve(self, size: int) -> None:
        if size > 0 and self.in_use + size > self.limit:
            raise ApiError(
                429,
                f"Too many request bytes at once: the requests being received or answered "
                f"hold {self.in_use} bytes, and this one needs {size} more, past "
                f"{self.limit} (limits.maxConcurrentBodyBytes). Retry shortly.",
                type="rate_limit_error",
                code="too_many_concurrent_requests",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        self.in_use += size

    def release(self, size: int) -> None:
        self.in_use -= size


BODY_BUDGET: web.AppKey[BodyBudget] = web.AppKey("body_budget", BodyBudget)


def text_bytes(text: str) -> int:
    """The UTF-8 size of a frame's text (an ASCII text's length says it without a copy)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class Reservation:
    """What one request holds of the budget; `release` gives all of it back."""

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.size = 0

    def grow_to(self, size: int) -> None:
        """Holds at least `size` bytes (429 when the budget has no room for the rest)."""
        if size > self.size:
            self._budget.reserve(size - self.size)
            self.size = size

    def release(self) -> None:
        """Gives back all it holds; again, nothing more."""
        self._budget.release(self.size)
        self.size = 0
