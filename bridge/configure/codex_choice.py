"""The model name Codex should ask for, and the alias the bridge then needs.

Codex gives its full tool set (`apply_patch` included) only to names from its own catalog
(`codex_names`), while the editor offers its own ids. So:

1. the editor model is `--model` (an editor id, or an alias the bridge lists), else the
   editor's first model;
2. when Codex knows the editor's id itself, Codex asks for it as it is;
3. else when the bridge already lists an alias for that model that Codex knows, that alias;
4. else `gpt-5.5`, and the bridge needs the alias `gpt-5.5` -> the editor model.
"""

from __future__ import annotations

from dataclasses import dataclass

from bridge.configure.bridge_models import ChoiceError, ListedModel
from bridge.configure.codex_names import PREFERRED_CODEX_MODEL, codex_offers_all_tools


@dataclass(frozen=True)
class Alias:
    """An alias the bridge must have: a request for `name` is answered by `target`."""

    name: str
    target: str
    present: bool  # the running bridge already has it


@dataclass(frozen=True)
class CodexChoice:
    codex_model: str  # what config.toml says
    editor_model: str  # the editor model that answers it
    context_window: int | None  # the editor model's maxInputTokens, when the bridge tells it
    alias: Alias | None  # None: Codex asks for the editor's own id


def choose_codex_model(models: list[ListedModel], requested: str | None) -> CodexChoice:
    editor = [model for model in models if model.alias_for is None]
    by_id = {model.id: model for model in models}
    if requested is None:
        if not editor:
            raise ChoiceError("The bridge offers no models: the editor has none to serve.")
        target = editor[0]
    elif requested in by_id:
        listed = by_id[requested]
        if listed.alias_for is not None and codex_offers_all_tools(requested):
            alias = Alias(requested, listed.alias_for, present=True)
            return CodexChoice(requested, listed.alias_for, listed.max_input_tokens, alias)
        target = by_id.get(listed.alias_for or requested, listed)
    else:
        names = ", ".join(model.id for model in models) or "none"
        raise ChoiceError(f"The bridge offers no model {requested!r}. Models: {names}.")

    if codex_offers_all_tools(target.id):
        return CodexChoice(target.id, target.id, target.max_input_tokens, None)
    known = [
        model.id
        for model in models
        if model.alias_for == target.id and codex_offers_all_tools(model.id)
    ]
    if known:
        name = PREFERRED_CODEX_MODEL if PREFERRED_CODEX_MODEL in known else known[0]
        alias = Alias(name, target.id, present=True)
    else:
        alias = Alias(PREFERRED_CODEX_MODEL, target.id, present=False)
    return CodexChoice(alias.name, target.id, target.max_input_tokens, alias)
