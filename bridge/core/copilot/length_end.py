"""Copilot 0.67's length finish: the partial answer, no error, and no usage part.

Copilot reports a `usage` data part after every answer that ends normally, and returns early
without one when the model stopped at its output limit (languageModelAccess.ts: on a `length`
result it logs "returning the partial response" and returns before the usage is reported). So
for a model of a provider that does so, an answer that ends without a usage part ended at its
output limit, and the client is told so (`length`, `max_tokens`, `MAX_TOKENS`, `incomplete`).
Older Copilots threw `Response too long.` instead (bridge/core/editor_failures.py).
"""

from __future__ import annotations

import logging

from bridge.core.backend import Backend, EditorError

log = logging.getLogger(__name__)

# The vendors whose models end every complete answer with a usage part: Copilot's, and the two
# test doubles that re-enact it (the headless editor's simulated models and the VS Code test
# extension's scripted model), named so the rule is tested where Copilot cannot run.
USAGE_EVERY_ANSWER_VENDORS = frozenset({"copilot", "maestro-sim", "maestro-test"})


async def ended_at_output_limit(backend: Backend, model_id: str) -> bool:
    """Whether an answer of `model_id` that ended without a usage part was cut at the model's
    output limit (its vendor reports usage after every complete answer)."""
    try:
        models = await backend.list_models()
    except EditorError:
        return False
    vendor = next((m.vendor for m in models if m.id == model_id), "")
    if vendor not in USAGE_EVERY_ANSWER_VENDORS:
        return False
    log.info("The answer ended without the provider's usage report: cut at its output limit")
    return True
