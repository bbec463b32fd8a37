"""A measurement switch: turn named token savings of the bridge off, to measure what they save.

`MAESTRO_BRIDGE_SAVINGS_OFF=name,name` (or `all`) makes the bridge behave as if a saving had
never been built, so bench/credit_sessions.py can run the same agent sessions with and without
it (issue 42, "before and after"). Never set it in normal use: every saving it turns off costs
tokens and nothing else. The names (`SAVINGS`) and where each is implemented:

- `billing_header`: Claude Code's first system line, `x-anthropic-billing-header: ...cch=...`,
  is dropped (anthropic/convert.py); it changes per request, so kept it breaks the prompt's
  cached prefix at its very start.
- `turn_notes_last`: what holds for one answer only goes after the history (core/turn_notes.py);
  off, it goes first, before the history.
- `deferred_tools`: deferred tools (`defer_loading`) are offered only once a tool search has
  loaded them (anthropic/tools.py); off, all of them on every request.

Read on every use (not cached) so a test can set it for one process without a restart.
"""

from __future__ import annotations

import os

ENV = "MAESTRO_BRIDGE_SAVINGS_OFF"
SAVINGS = ("billing_header", "turn_notes_last", "deferred_tools")


def off(name: str) -> bool:
    """Whether the saving `name` is switched off for this measurement."""
    raw = os.environ.get(ENV, "")
    if not raw:
        return False
    names = {part.strip() for part in raw.split(",")}
    return name in names or "all" in names
