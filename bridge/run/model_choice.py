"""The model of one run: `--model` (it must be listed), else the model the agent's own
configuration names when the bridge lists it, else the editor's default: the first editor
model the bridge lists (its order is the editor's: VS Code's, Copilot's default first)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.configure.codex_names import codex_offers_all_tools

NO_MODELS = (
    "The bridge offers no models: the editor has none to serve (`maestro-bridge doctor` says why)."
)


@dataclass(frozen=True)
class Choice:
    model: str
    context_window: int | None
    why: str  # "--model", "configured", "editor default"


def choose_model(
    models: list[ListedModel], requested: str | None, configured: str | None
) -> Choice:
    by_id = {model.id: model for model in models}
    if requested is not None:
        if requested not in by_id:
            names = ", ".join(by_id) or "none"
            raise ChoiceError(
                f"--model: the bridge offers no model {requested!r}. Models: {names}."
            )
        return Choice(requested, _window(by_id[requested], by_id), "--model")
    if configured is not None and configured in by_id:
        return Choice(configured, _window(by_id[configured], by_id), "configured")
    editor = [model for model in models if model.alias_for is None]
    if not editor:
        raise ChoiceError(NO_MODELS)
    return Choice(editor[0].id, editor[0].max_input_tokens, "editor default")


def _window(model: ListedModel, by_id: dict[str, ListedModel]) -> int | None:
    target = by_id.get(model.alias_for or model.id, model)
    return model.max_input_tokens or target.max_input_tokens


def codex_name(models: list[ListedModel], choice: Choice) -> str:
    """The name Codex should ask for: the chosen one, unless Codex does not know it and the
    bridge lists an alias of the same editor model that Codex knows (Codex offers its full
    tool set, apply_patch included, only to names of its own catalog)."""
    if codex_offers_all_tools(choice.model) or choice.why == "--model":
        return choice.model
    by_id = {model.id: model for model in models}
    target = by_id[choice.model].alias_for or choice.model
    known = [m.id for m in models if m.alias_for == target and codex_offers_all_tools(m.id)]
    return known[0] if known else choice.model
