"""What the usage ledger records about the HTTP request behind each model request.

The HTTP layer tags a request (its client, dialect and path) before any handler runs; the
dialect adds what only it knows once the body is read (the model name the client asked for,
whether it streams). The tags live in a context variable, so the backend wrapper that meters
each chat with the editor (bridge/usage/meter.py) reads them without any dialect passing them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RequestTags:
    client: str = "other"
    dialect: str = ""
    path: str = ""
    requested_model: str = ""
    streamed: bool = False
    # Set by the usage meter while a row waits for the count of an answer the editor reported
    # no usage for: the dialect counts it anyway (bridge/core/answer.py, estimate_usage) and
    # hands it over, so the editor is not asked to count the same text twice.
    awaiting_estimate: Callable[[Any], None] | None = field(default=None, compare=False)


_TAGS: ContextVar[RequestTags | None] = ContextVar("maestro_request_tags", default=None)


def tag_request(tags: RequestTags) -> None:
    """Tags the HTTP request being handled (the current task and the tasks it starts)."""
    _TAGS.set(tags)


def current_tags() -> RequestTags:
    """The tags of the request being handled; empty ones outside a request (a test, a bench)."""
    return _TAGS.get() or RequestTags()


def note_request(dialect: str, requested_model: str, streamed: bool) -> None:
    """What the dialect read from the body: the model name asked for, and whether it streams."""
    tags = _TAGS.get()
    if tags is not None:
        tags.dialect = dialect
        tags.requested_model = requested_model
        tags.streamed = streamed


def settle_estimate(counts: Any) -> None:
    """The dialect's own count of an answer without a usage report, for the meter's row."""
    tags = _TAGS.get()
    if tags is not None and tags.awaiting_estimate is not None:
        settle, tags.awaiting_estimate = tags.awaiting_estimate, None
        settle(counts)
