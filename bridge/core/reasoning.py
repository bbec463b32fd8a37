"""Thinking budgets in tokens -> the editor's reasoning effort, alike in every dialect."""

from __future__ import annotations

# Claude Code's "think" asked for 4,000 tokens, "think hard" 10,000, "ultrathink" 31,999.
LOW_BUDGET_MAX = 4_096
MEDIUM_BUDGET_MAX = 16_384


def budget_effort(budget: int) -> str:
    """A thinking budget in tokens -> the editor's reasoning effort."""
    if budget <= LOW_BUDGET_MAX:
        return "low"
    if budget <= MEDIUM_BUDGET_MAX:
        return "medium"
    return "high"
