"""The last check before the editor is asked: may this request go to this model now?

Each dialect's prepare step calls `admit` once the model is resolved and before the editor
is asked anything (not even to count tokens), so that a refusal (a spent token budget,
bridge/budgets/) is an HTTP status in the dialect's envelope, or the WebSocket's error event,
and never a cut stream. What checks is set per HTTP request by the application (a context
variable, like the request's tags): no dialect needs to know who decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar

from bridge.core.request_tags import current_tags

# (client, editor model id) -> None, or raises ApiError to refuse the request.
Check = Callable[[str, str], Awaitable[None]]

_CHECK: ContextVar[Check | None] = ContextVar("maestro_admission_check", default=None)


def set_check(check: Check) -> None:
    """The check for the HTTP request being handled (and the tasks it starts)."""
    _CHECK.set(check)


async def admit(model_id: str) -> None:
    """Raises ApiError when the request may not go to `model_id`; nothing outside a request."""
    check = _CHECK.get()
    if check is not None:
        await check(current_tags().client, model_id)
