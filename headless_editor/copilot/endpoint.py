"""What Copilot reads off a model's endpoint: its API and whether it takes more than 128 tools.

chatEndpoint.ts: `supportsToolSearch` is CAPI's `supports.tool_search` when the model's metadata
says, else chatModelCapabilities.ts' `modelSupportsToolSearch` (Claude Sonnet or Opus 4.5 and
later, by model id). Such a model may be sent any number of tools (languageModelAccess.ts).
The GPT-5 family is served through the Responses API (CAPI lists `/responses` for it), Claude
through Anthropic's Messages API (`/v1/messages`), the others through the chat API.
"""

from __future__ import annotations

import re

from headless_editor.chat_types import ModelInfo

# Simulated models whose CAPI metadata says `supports.tool_search` (sim_models.py).
TOOL_SEARCH_MODELS = frozenset({"sim-gpt5"})
_CLAUDE = re.compile(r"^claude-(?:sonnet|opus)-(\d+)(?:-(\d{1,2}))?(?:-|$)")


def supports_tool_search(model: ModelInfo) -> bool:
    if model.id in TOOL_SEARCH_MODELS:
        return True
    found = _CLAUDE.match(model.id.lower().replace(".", "-"))
    if found is None:
        return False
    major, minor = int(found[1]), int(found[2] or 0)
    return major > 4 or (major == 4 and minor >= 5)


def uses_responses_api(model: ModelInfo) -> bool:
    return model.family.startswith("gpt-5")


def uses_messages_api(model: ModelInfo) -> bool:
    """Claude models: CAPI lists `/v1/messages` for them, which 0.67 prefers to the chat API."""
    return model.family.startswith("claude")
