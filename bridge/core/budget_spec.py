"""A budget: which requests it counts, over which period, and how many tokens it allows.

Written as on the command line, `SCOPE=N/PERIOD`: SCOPE `all`, a client name
(bridge/usage/clients.py) or `model:EDITOR_MODEL_ID`; N whole tokens (input + output);
PERIOD `day` (the machine's local day) or `month` (the calendar month, local time).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal, cast

Scope = Literal["all", "client", "model"]
Period = Literal["day", "month"]

PERIODS: tuple[Period, ...] = ("day", "month")
MODEL_PREFIX = "model:"
_TEXT = re.compile(r"\s*([^=\s][^=]*?)\s*=\s*([0-9][0-9_]*)\s*/\s*([a-z]+)\s*")
WARNING_SHARE = 0.8  # a budget 80 % used is logged (once per period) and shown as a warning


class BudgetSyntaxError(ValueError):
    """A budget that cannot be read; the message says what is expected."""


@dataclass(frozen=True)
class Budget:
    scope: Scope
    name: str | None  # the client's or the editor model's name; None for `all`
    period: Period
    limit: int  # input + output tokens in one period

    def label(self) -> str:
        """How messages and logs name it: `the daily budget`, `claude-code's monthly budget`."""
        adjective = "daily" if self.period == "day" else "monthly"
        if self.scope == "client":
            return f"the {adjective} token budget of client {self.name!r}"
        if self.scope == "model":
            return f"the {adjective} token budget of model {self.name!r}"
        return f"the {adjective} token budget"

    def counts(self, client: str, model: str) -> bool:
        """Whether a request of this client to this editor model counts against it."""
        if self.scope == "client":
            return client == self.name
        if self.scope == "model":
            return model == self.name
        return True


def parse_budget(text: str) -> Budget:
    """`claude-code=2000000/day`, `model:gpt-5=10000000/month`, `all=5000000/day`."""
    found = _TEXT.fullmatch(text)
    if found is None:
        raise BudgetSyntaxError(
            f"{text!r} is not SCOPE=TOKENS/PERIOD (such as claude-code=2000000/day or "
            "model:gpt-5=10000000/month)"
        )
    scope_text, tokens, period_text = found.group(1), int(found.group(2)), found.group(3)
    if period_text not in PERIODS:
        raise BudgetSyntaxError(
            f"{text!r}: the period must be 'day' or 'month', not {period_text!r}"
        )
    period = cast(Period, period_text)
    if tokens < 1:
        raise BudgetSyntaxError(f"{text!r}: a budget allows at least 1 token")
    if scope_text == "all":
        return Budget("all", None, period, tokens)
    if scope_text.startswith(MODEL_PREFIX):
        model = scope_text.removeprefix(MODEL_PREFIX).strip()
        if not model:
            raise BudgetSyntaxError(f"{text!r}: 'model:' needs the editor model's id")
        return Budget("model", model, period, tokens)
    return Budget("client", scope_text, period, tokens)


def period_bounds(period: Period, now: datetime | None = None) -> tuple[datetime, datetime]:
    """The local period holding `now`: (its start, the start of the next one), both aware."""
    now = (now or datetime.now()).astimezone()
    today = now.date()
    if period == "day":
        start_day, next_day = today, today + timedelta(days=1)
    else:
        start_day = today.replace(day=1)
        next_day = (start_day + timedelta(days=32)).replace(day=1)
    return _local_midnight(start_day), _local_midnight(next_day)


def _local_midnight(day: date) -> datetime:
    return datetime.combine(day, datetime.min.time()).astimezone()
