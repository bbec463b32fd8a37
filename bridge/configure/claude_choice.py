"""The models Claude Code should ask for, chosen from what the bridge lists.

Claude Code asks for one main model (`ANTHROPIC_MODEL`) and, for its `opus`, `sonnet` and
`haiku` shortcuts and its background work, one model per family
(`ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL`). Every listed id counts, aliases included:
the bridge answers each of them.

- main model: `--model` (it must be listed), else the newest Claude sonnet or opus (sonnet
  on a tie: the cheaper one), else the first model listed;
- per family: the newest listed id of that family, else the main model.

Editors name Claude models in several ways; GitHub Copilot offers `claude-sonnet-4.5`,
`claude-3.7-sonnet`, `claude-3.7-sonnet-thought` and `claude-opus-41` (Opus 4.1), Anthropic's
own ids look like `claude-sonnet-4-5-20250929`. The version is read from the numbers of the
id: numbers of four digits or more are dates or sizes, not versions; a lone two-digit number
such as Copilot's `41` means 4.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridge.configure.bridge_models import ChoiceError, ListedModel

FAMILIES = ("opus", "sonnet", "haiku")


@dataclass(frozen=True)
class ClaudeChoice:
    model: str  # ANTHROPIC_MODEL
    context_window: int | None  # the main model's max input tokens, when the bridge tells it
    family_models: dict[str, str]  # "opus" / "sonnet" / "haiku" -> the id to ask for


@dataclass(frozen=True, order=True)
class _Rank:
    """How new a Claude id is; greater is newer, then plainer (fewer extra words)."""

    version: tuple[int, ...]
    plainness: int


def claude_family(model_id: str) -> str | None:
    """`opus`, `sonnet` or `haiku` for a Claude model id, else None."""
    words = set(_tokens(model_id))
    if "claude" not in words:
        return None
    found = [family for family in FAMILIES if family in words]
    return found[0] if len(found) == 1 else None


def _tokens(model_id: str) -> list[str]:
    return [token for token in re.split(r"[-._/:@\s]+", model_id.lower()) if token]


def _rank(model_id: str) -> _Rank:
    version: list[int] = []
    extra = 0
    for token in _tokens(model_id):
        if token.isdigit():
            if len(token) >= 4:
                continue  # a date (20250929) or a size (128000)
            if len(token) == 2 and not version:
                version += [int(token[0]), int(token[1])]  # Copilot's "41": 4.1
            else:
                version.append(int(token))
        elif token not in ("claude", *FAMILIES, "latest"):
            extra += 1  # a variant: "thought", "thinking", "1m", ...
    return _Rank(tuple(version), -extra)


def newest(models: list[ListedModel], family: str) -> ListedModel | None:
    """The newest listed model of a Claude family (the first listed of equals), if any."""
    members = [model for model in models if claude_family(model.id) == family]
    best: ListedModel | None = None
    for model in members:
        if best is None or _rank(model.id) > _rank(best.id):
            best = model
    return best


def choose_claude_models(models: list[ListedModel], requested: str | None) -> ClaudeChoice:
    if requested is not None:
        by_id = {model.id: model for model in models}
        if requested not in by_id:
            names = ", ".join(model.id for model in models) or "none"
            raise ChoiceError(f"The bridge offers no model {requested!r}. Models: {names}.")
        main = by_id[requested]
    else:
        if not models:
            raise ChoiceError("The bridge offers no models: the editor has none to serve.")
        main = _default_main(models)
    families = {}
    for family in FAMILIES:
        member = newest(models, family)
        families[family] = member.id if member is not None else main.id
    return ClaudeChoice(main.id, main.max_input_tokens, families)


def _default_main(models: list[ListedModel]) -> ListedModel:
    candidates = [m for m in (newest(models, "sonnet"), newest(models, "opus")) if m is not None]
    if not candidates:
        return models[0]
    # max() keeps the first of equals: sonnet, listed first, wins a tie.
    return max(candidates, key=lambda model: _rank(model.id).version)
