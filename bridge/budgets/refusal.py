"""The answer to a request over a budget: 429 with `budget_exceeded` and `Retry-After`.

Each dialect writes the neutral ApiError in its own envelope (OpenAI's error with its `code`,
Anthropic's `rate_limit_error`, Google's RESOURCE_EXHAUSTED with a RetryInfo). `x-should-retry:
false` tells the openai and anthropic SDKs not to retry at once: the budget resets at the
time the message names, not in a second.
"""

from __future__ import annotations

import math
from datetime import datetime

from bridge.core.budget_spec import Budget
from bridge.core.errors import ApiError

CODE = "budget_exceeded"


def budget_exceeded(budget: Budget, used: int, resets_at: datetime, now: datetime) -> ApiError:
    wait = max(1, math.ceil((resets_at - now).total_seconds()))
    message = (
        f"Maestro Bridge refused this request: {budget.label()} is spent ({used} of "
        f"{budget.limit} input + output tokens used). It resets at "
        f"{resets_at.isoformat(timespec='seconds')}."
    )
    return ApiError(
        429,
        message,
        type="rate_limit_error",
        code=CODE,
        headers={"Retry-After": str(wait), "x-should-retry": "false"},
    )
