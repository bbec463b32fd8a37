"""The simulated models the headless editor offers, shaped like GitHub Copilot's.

Their families are Copilot's so the family rules of the Copilot stand-in
(headless_editor/copilot/) apply to them: `sim-echo` is GPT-4-ish (the strictest schema
rules), `sim-reasoning` Claude-ish, `sim-gemini` Gemini-ish, and `sim-text-only` is a model
without image input. Limits are of the size Copilot reports for such models.
"""

from __future__ import annotations

from headless_editor.bench_model import BENCH_MODEL
from headless_editor.chat_types import ModelCapabilities, ModelInfo


def _model(model_id: str, name: str, family: str, output: int, images: bool = True) -> ModelInfo:
    return ModelInfo(
        id=model_id,
        name=name,
        vendor="maestro-sim",
        family=family,
        version="1",
        maxInputTokens=128000,
        maxOutputTokens=output,
        capabilities=ModelCapabilities(imageInput=images, toolCalling=True),
    )


MODELS: list[ModelInfo] = [
    _model("sim-echo", "Simulated echo", "gpt-4.1", 16384),
    _model("sim-reasoning", "Simulated reasoning", "claude-sonnet-4.5", 16000),
    BENCH_MODEL,  # exempt from the Copilot rules: it measures the bridge, not the model
    _model("sim-gemini", "Simulated Gemini", "gemini-2.5-pro", 64000),
    _model("sim-text-only", "Simulated text-only", "o3-mini", 16384, images=False),
]
THINKING_MODELS = {"sim-reasoning"}
