"""The sampling options Copilot posts to CAPI for a vscode.lm request (what the model gets).

LanguageModelOptions.convert keeps the caller's five options (a `stop` list is dropped: only
scalars pass); Copilot fills in what the caller left out (temperature 0.1, top_p 1, n 1,
max_tokens the model's maxOutputTokens). A Responses-API model takes no temperature but a
reasoning effort (the caller's modelConfiguration.reasoningEffort, else medium), its encrypted
reasoning back, and low verbosity.
"""

from __future__ import annotations

from typing import Any

from headless_editor.chat_types import ModelInfo
from headless_editor.copilot.endpoint import uses_responses_api

DEFAULTS: dict[str, Any] = {"temperature": 0.1, "top_p": 1, "n": 1}
DEFAULT_EFFORT = "medium"


def request_body(options: dict[str, Any], model: ModelInfo, effort: str | None) -> dict[str, Any]:
    """CAPI's post options: `options` (already Copilot's five) over Copilot's defaults."""
    body: dict[str, Any] = {**DEFAULTS, **options}
    if "max_tokens" not in body and model.maxOutputTokens > 0:
        body["max_tokens"] = model.maxOutputTokens
    if uses_responses_api(model):
        body.pop("temperature", None)
        body["reasoning"] = {"effort": effort or DEFAULT_EFFORT}
        body["include"] = ["reasoning.encrypted_content"]
        body["text"] = {"verbosity": "low"}
    return body
