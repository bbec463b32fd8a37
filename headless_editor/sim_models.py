"""The simulated models the headless editor offers, shaped like GitHub Copilot's.

Their families are Copilot's so the family rules of the Copilot stand-in
(headless_editor/copilot/) apply to them: `sim-echo` is GPT-4-ish (the strictest schema
rules), `sim-reasoning` Claude-ish, `sim-gemini` Gemini-ish, `sim-text-only` is a model
without image input, and `sim-gpt5` a GPT-5 served through the Responses API whose metadata
says it supports tool search (so it takes more than 128 tools). Limits are of the size Copilot
reports for such models: `maxInputTokens` is CAPI's window less Copilot's own prompt
(copilot/prompt.py).

As Copilot 0.67 does, the list also has `auto` (Copilot picks the model per request) and the
internal utility aliases `copilot-utility` and `copilot-utility-small` (copies of the entry of
the model they stand for, under the alias as id and family: languageModelAccess.ts).
"""

from __future__ import annotations

from headless_editor.bench_model import BENCH_MODEL
from headless_editor.chat_types import ModelCapabilities, ModelInfo
from headless_editor.copilot.prompt import listed_input_tokens


def _model(
    model_id: str,
    name: str,
    family: str,
    output: int,
    images: bool = True,
    window: int = 128000,
) -> ModelInfo:
    """A model listed with `window` input tokens (CAPI's window less Copilot's prompt)."""
    return ModelInfo(
        id=model_id,
        name=name,
        vendor="maestro-sim",
        family=family,
        version="1",
        maxInputTokens=window,
        maxOutputTokens=output,
        capabilities=ModelCapabilities(imageInput=images, toolCalling=True),
    )


def _alias(alias: str, base: ModelInfo) -> ModelInfo:
    return ModelInfo(
        id=alias,
        name=base.name,
        vendor=base.vendor,
        family=alias,
        version=base.version,
        maxInputTokens=base.maxInputTokens,
        maxOutputTokens=base.maxOutputTokens,
        capabilities=base.capabilities,
    )


_ECHO = _model("sim-echo", "Simulated echo", "gpt-4.1", 16384)
_TEXT_ONLY = _model("sim-text-only", "Simulated text-only", "o3-mini", 16384, images=False)
_GPT5 = _model("sim-gpt5", "Simulated GPT-5", "gpt-5.4", 64000, window=listed_input_tokens(64000))
AUTO = ModelInfo(
    id="auto",
    name="Auto",
    vendor="maestro-sim",
    family="auto",
    version="1",
    maxInputTokens=_ECHO.maxInputTokens,
    maxOutputTokens=_ECHO.maxOutputTokens,
    capabilities=ModelCapabilities(imageInput=True, toolCalling=True),
)
MODELS: list[ModelInfo] = [
    _ECHO,
    _model("sim-reasoning", "Simulated reasoning", "claude-sonnet-4.5", 16000),
    BENCH_MODEL,  # exempt from the Copilot rules: it measures the bridge, not the model
    _model("sim-gemini", "Simulated Gemini", "gemini-2.5-pro", 64000),
    _TEXT_ONLY,
    _GPT5,
    AUTO,
    _alias("copilot-utility", _ECHO),
    _alias("copilot-utility-small", _TEXT_ONLY),
]
THINKING_MODELS = {"sim-reasoning"}
# The model that answers a request to `auto` or a utility alias.
ROUTES = {
    "auto": "sim-echo",
    "copilot-utility": "sim-echo",
    "copilot-utility-small": "sim-text-only",
}


def answering_model(model: ModelInfo) -> ModelInfo:
    """The model behind `model`: itself, or the one `auto` or an alias routes to."""
    target = ROUTES.get(model.id)
    return next((m for m in MODELS if m.id == target), model)
