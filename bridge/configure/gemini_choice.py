"""The model Gemini CLI should ask for (GEMINI_MODEL), chosen from what the bridge lists.

- `--model`, when the bridge lists it (an editor id or an alias: the bridge answers both);
- else the newest Gemini "pro" model the editor offers (GitHub Copilot offers ids such as
  `gemini-2.5-pro` and `gemini-3-pro-preview`), else its newest Gemini model of any kind;
- else the editor's first model.

The version is read from the numbers of the id (`gemini-2.5-pro`: 2.5); numbers of four
digits or more are dates, not versions. Of equal versions the plainer id wins (fewer extra
words such as `preview`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridge.configure.bridge_models import ChoiceError, ListedModel

_KNOWN_WORDS = frozenset({"gemini", "pro", "latest", "models"})


@dataclass(frozen=True)
class GeminiChoice:
    model: str  # GEMINI_MODEL
    editor_model: str  # the editor model that answers it (itself, or an alias's target)
    context_window: int | None  # its max input tokens, when the bridge tells it


def _words(model_id: str) -> list[str]:
    return [word for word in re.split(r"[-_/:@\s]+", model_id.lower()) if word]


def is_gemini(model_id: str) -> bool:
    return "gemini" in _words(model_id)


def _rank(model_id: str) -> tuple[tuple[int, ...], int]:
    """(version, plainness): greater is newer, then plainer."""
    version: list[int] = []
    extra = 0
    for word in _words(model_id):
        numbers = word.split(".")
        if all(part.isdigit() for part in numbers):
            if len(word) < 4:  # not a date such as 20250514
                version += [int(part) for part in numbers]
        elif word not in _KNOWN_WORDS:
            extra += 1
    return tuple(version), -extra


def _newest(models: list[ListedModel]) -> ListedModel | None:
    best: ListedModel | None = None
    for model in models:
        if best is None or _rank(model.id) > _rank(best.id):
            best = model  # the first listed of equals stays
    return best


def choose_gemini_model(models: list[ListedModel], requested: str | None) -> GeminiChoice:
    by_id = {model.id: model for model in models}
    if requested is not None:
        if requested not in by_id:
            names = ", ".join(model.id for model in models) or "none"
            raise ChoiceError(f"The bridge offers no model {requested!r}. Models: {names}.")
        chosen = by_id[requested]
    else:
        editor = [model for model in models if model.alias_for is None]
        if not editor:
            raise ChoiceError("The bridge offers no models: the editor has none to serve.")
        gemini = [model for model in editor if is_gemini(model.id)]
        pro = [model for model in gemini if "pro" in _words(model.id)]
        chosen = _newest(pro) or _newest(gemini) or editor[0]
    target = by_id.get(chosen.alias_for or chosen.id, chosen)
    return GeminiChoice(chosen.id, target.id, chosen.max_input_tokens or target.max_input_tokens)
