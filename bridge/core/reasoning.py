"""Reasoning efforts: a thinking budget in tokens -> an effort, and an effort -> a level the
editor's model takes."""

from __future__ import annotations

# Claude Code's "think" asked for 4,000 tokens, "think hard" 10,000, "ultrathink" 31,999.
LOW_BUDGET_MAX = 4_096
MEDIUM_BUDGET_MAX = 16_384

# The levels every reasoning model behind Copilot takes. Copilot's Messages path (Claude,
# messagesApi.ts) passes only low/medium/high and drops any other; the levels a GPT model
# takes beyond these (`minimal`, `xhigh`, `none`) are in CAPI's model metadata, which
# `vscode.lm` does not show (VS Code 1.139 gives no `configurationSchema`), so an effort is
# brought to the nearest of the three rather than risk a value the model refuses.
_NEAREST = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}


def budget_effort(budget: int) -> str:
    """A thinking budget in tokens -> the editor's reasoning effort."""
    if budget <= LOW_BUDGET_MAX:
        return "low"
    if budget <= MEDIUM_BUDGET_MAX:
        return "medium"
    return "high"


def model_effort(effort: str | None) -> str | None:
    """The level sent as Copilot's `reasoningEffort`; None (the model's default) for `none`
    and unknown words: no level turns reasoning off on every model."""
    if effort is None:
        return None
    return _NEAREST.get(effort.lower())


def is_claude(family: str) -> bool:
    """Copilot's `isAnthropicFamily` (chatModelCapabilities.ts)."""
    return family.startswith(("claude", "Anthropic"))
