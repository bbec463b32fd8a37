"""Model names: which editor model answers the name a client asked for.

Clients ask for the names they know (Codex picks its tools from its own catalog by name, so
`gpt-5.5` gets the `apply_patch` custom tool), while the editor offers its own ids. Aliases
map one onto the other; an optional default catches every other unknown name.

Resolution order, first hit wins:
1. an alias of that name (explicit configuration beats a coincidental editor id);
2. an editor model with that id;
3. the default model, when one is set;
otherwise a 404 `model_not_found` listing what can be asked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError


@dataclass(frozen=True)
class ModelNames:
    """The user's naming rules (settings `modelAliases` and `defaultModel`)."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    default: str | None = None


def resolve_model(
    requested: str, models: list[ModelInfo], names: ModelNames | None = None
) -> ModelInfo:
    """The editor model that answers `requested`; raises a 404 ApiError when there is none."""
    names = names or ModelNames()
    by_id = {model.id: model for model in models}
    target = names.aliases.get(requested)
    if target is not None:
        if target in by_id:
            return by_id[target]
        raise _not_found(
            f"The model alias {requested!r} points to {target!r}, which the editor does not offer.",
            models,
            names,
        )
    if requested in by_id:
        return by_id[requested]
    if names.default is not None:
        if names.default in by_id:
            return by_id[names.default]
        raise _not_found(
            f"The model {requested!r} does not exist in the editor, and the default model "
            f"{names.default!r} is not offered either.",
            models,
            names,
        )
    raise _not_found(f"The model {requested!r} does not exist in the editor.", models, names)


def listed_models(models: list[ModelInfo], names: ModelNames | None = None) -> list[dict[str, Any]]:
    """GET /v1/models entries: the editor's models, then each alias whose target exists.

    An alias is listed as its target's entry under the alias's name, with `alias_for` naming
    the target, so a client that checks the list before asking finds the name it knows. An
    alias that shadows an editor id replaces that entry (it wins in `resolve_model` too).
    """
    names = names or ModelNames()
    by_id = {model.id: model for model in models}
    listed = [model_object(model) for model in models if model.id not in names.aliases]
    for alias, target in names.aliases.items():
        if target in by_id:
            listed.append(model_object(by_id[target], alias=alias))
    return listed


def model_object(model: ModelInfo, alias: str | None = None) -> dict[str, Any]:
    """One entry of GET /v1/models: OpenAI's shape, plus what the editor tells."""
    entry: dict[str, Any] = {
        "id": alias or model.id,
        "object": "model",
        "created": 0,
        "owned_by": model.vendor or "editor",
        "name": model.name,
        "family": model.family,
        "version": model.version,
        "max_input_tokens": model.maxInputTokens,
    }
    if alias is not None:
        entry["alias_for"] = model.id
    return entry


def parse_alias(text: str) -> tuple[str, str]:
    """`NAME=MODEL` (the `--model-alias` argument) as (name, model); ValueError if malformed."""
    name, sep, target = text.partition("=")
    name, target = name.strip(), target.strip()
    if not sep or not name or not target:
        raise ValueError(f"expected NAME=MODEL, such as gpt-5.5=sim-echo, not {text!r}")
    return name, target


def _not_found(message: str, models: list[ModelInfo], names: ModelNames) -> ApiError:
    available = ", ".join(model.id for model in models) or "none"
    text = f"{message} Available models: {available}."
    usable = [alias for alias, target in names.aliases.items() if target in {m.id for m in models}]
    if usable:
        text += f" Aliases: {', '.join(usable)}."
    return ApiError(404, text, param="model", code="model_not_found")
