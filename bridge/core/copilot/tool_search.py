"""Which models Copilot lets take more than 128 tools: those whose endpoint supports tool search.

languageModelAccess.ts throws `Cannot have more than 128 tools per request.` only when
`!endpoint.supportsToolSearch`. That flag is CAPI's `supports.tool_search` when the model's
metadata has it, else `modelSupportsToolSearch` (chatModelCapabilities.ts), which this ports.
`vscode.lm` shows a model's id and family but not CAPI's metadata, so a model CAPI marks
otherwise is judged by the port alone.
"""

from __future__ import annotations

import hashlib

from bridge.core.parts import ModelInfo

# chatModelCapabilities.ts `HIDDEN_FAMILY_M_HASHES`: a family Copilot names only by its hash.
_HIDDEN_FAMILY_M = frozenset({"0902565c0c0fe145633a1f246ae551acc0f621249ef050428eba357fbd4655ee"})
# Pre-4.5 Claude generations; `-4-2` also catches dated 4.0 ids (`claude-sonnet-4-20250514`).
_PRE_45_PREFIXES = (
    "claude-1",
    "claude-2",
    "claude-3",
    "claude-instant",
    "claude-sonnet-4-2",
    "claude-opus-4-1",
    "claude-opus-4-2",
)


def _matches(name: str) -> bool:
    n = name.lower().replace(".", "-")
    if n in ("gpt-5-4", "gpt-5-5"):  # client-side tool search over the Responses API
        return True
    if not n.startswith("claude") or n.startswith("claude-haiku"):
        return False
    pre_45 = n.startswith(_PRE_45_PREFIXES) or n in ("claude-sonnet-4", "claude-opus-4")
    return not pre_45


def supports_tool_search(model: ModelInfo) -> bool:
    """Copilot's `modelSupportsToolSearch` for this model: by its id or its family."""
    family = model.family or model.id
    hashed = hashlib.sha256(family.encode()).hexdigest()
    return _matches(model.id) or _matches(family) or hashed in _HIDDEN_FAMILY_M
