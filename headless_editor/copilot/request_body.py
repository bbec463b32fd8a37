"""The sampling options Copilot posts to CAPI for a vscode.lm request (what the model gets),
per upstream API, as real Copilot 0.67 sent them to a fake cloud (tests/test_copilot_differential.py
compares the two).

LanguageModelOptions.convert keeps the caller's five options (a `stop` list is dropped: only
scalars pass). On the chat API Copilot fills in what the caller left out (temperature 0.1,
top_p 1, n 1, max_tokens the model's maxOutputTokens). A Responses-API model gets no sampling
options but `max_output_tokens`, a reasoning effort (the caller's
modelConfiguration.reasoningEffort, else medium), its encrypted reasoning back, low verbosity,
`store: false` and `truncation: disabled`. A Messages-API (Claude) model gets only `max_tokens`,
and `thinking` when the caller's raw options say `_enableThinking`: a budget of the output
limit less one, at most 16,000 (messagesApi.ts, for a model with thinking budgets of
1,024-32,000 as CAPI lists Claude's).
"""

from __future__ import annotations

from typing import Any

from headless_editor.chat_types import ModelInfo
from headless_editor.copilot.endpoint import uses_messages_api, uses_responses_api

DEFAULTS: dict[str, Any] = {"temperature": 0.1, "top_p": 1, "n": 1}
DEFAULT_EFFORT = "medium"
THINKING_BUDGET = 16000  # messagesApi.ts: max(16,000, the model's minimum), capped below


def request_body(
    options: dict[str, Any],
    model: ModelInfo,
    effort: str | None,
    enable_thinking: bool = False,
) -> dict[str, Any]:
    """CAPI's post options: `options` (already Copilot's five) over Copilot's defaults."""
    limit = options.get("max_tokens")
    if limit is None and model.maxOutputTokens > 0:
        limit = model.maxOutputTokens
    if uses_responses_api(model):
        body: dict[str, Any] = {
            "store": False,
            "text": {"verbosity": "low"},
            "truncation": "disabled",
            "reasoning": {"effort": effort or DEFAULT_EFFORT},
            "include": ["reasoning.encrypted_content"],
        }
        if limit is not None:
            body["max_output_tokens"] = limit
        return body
    if uses_messages_api(model):
        body = {} if limit is None else {"max_tokens": limit}
        if enable_thinking and limit is not None and limit > 1:
            body["thinking"] = {"type": "enabled", "budget_tokens": min(limit - 1, THINKING_BUDGET)}
        return body
    body = {**DEFAULTS, **options}
    if limit is not None:
        body["max_tokens"] = limit
    return body
