"""Models Copilot publishes through `vscode.lm` that are not chat models for a client.

Copilot 0.67 (languageModelAccess.ts) adds utility aliases under the copilot vendor with
`isUserSelectable: false` (`copilot-utility-small`, `copilot-utility`, and the dictation
clean-up aliases, which answer only VS Code itself: "Model ... is only available to VS Code
core."), and `auto`, a router over the other models. The `LanguageModelChat` objects an
extension gets carry neither `isUserSelectable` nor `targetExtensions`, so the ids are all
the bridge has to know them by.
"""

from __future__ import annotations

from collections.abc import Iterable

from bridge.core.parts import ModelInfo

UTILITY_IDS = frozenset(
    {
        "copilot-utility-small",
        "copilot-utility",
        "copilot-dictation-cleanup-nano",
        "copilot-dictation-cleanup-luna",
        # Published as a core-only model when the list has no such chat model of its own.
        "gpt-5.6-luna",
    }
)
AUTO_ID = "auto"  # AutoChatEndpoint.pseudoModelId


def is_internal(model: ModelInfo) -> bool:
    return model.id in UTILITY_IDS


def offered(models: Iterable[ModelInfo]) -> list[ModelInfo]:
    """The models to list and to choose a default from: each id once (the first), no
    utility alias, and `auto` last, since a default is the first listed and `auto` is no one
    model (its limits and family are whichever it routes to)."""
    seen: set[str] = set()
    kept: list[ModelInfo] = []
    for model in models:
        if model.id in seen or is_internal(model):
            continue
        seen.add(model.id)
        kept.append(model)
    return [m for m in kept if m.id != AUTO_ID] + [m for m in kept if m.id == AUTO_ID]
