"""Model names: which editor model answers the name a client asked for.

Clients ask for the names they know (Codex picks its tools from its own catalog by name, so
`gpt-5.5` gets the `apply_patch` custom tool; Claude Code asks for `claude-sonnet-4-5-20250929`,
Gemini CLI for `models/gemini-2.5-pro`), while the editor offers its own ids (`claude-sonnet-4.5`,
`gemini-2.5-pro`). Aliases map one onto the other; the normalising match below covers the
spellings nobody configured; an optional default catches every other unknown name.

Resolution order, first hit wins:
1. an alias of that name (explicit configuration beats a coincidental editor id);
2. an editor model with that id;
3. an editor model with the same normalised name (`NameKey`: case, `.`/`-`/`_`, vendor
   prefixes, dates, `[1m]`, `-latest`/`-preview` do not count);
4. the newest editor model of the same family (same words, any version), for families of at
   least two words such as `claude opus`: a one-word family (`gpt-5.5`) names one model;
5. the default model, when one is set;
otherwise a 404 `model_not_found` listing what can be asked for.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from bridge.core.copilot.internal_models import offered
from bridge.core.errors import ApiError

if TYPE_CHECKING:  # `serve` parses its --model-alias flags here without the bridge's types
    from bridge.core.backend import ModelInfo

log = logging.getLogger(__name__)

How = Literal["alias", "normalised", "family", "default"]


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
            return _answered(requested, by_id[target], "alias")
        raise _not_found(
            f"The model alias {requested!r} points to {target!r}, which the editor does not offer.",
            models,
            names,
        )
    if requested in by_id:
        return by_id[requested]
    # Another spelling never lands on a utility alias: only an exact id reaches one.
    match = match_name(requested, [model.id for model in offered(models)])
    if match is not None:
        return _answered(requested, by_id[match[0]], match[1])
    if names.default is not None:
        if names.default in by_id:
            return _answered(requested, by_id[names.default], "default")
        raise _not_found(
            f"The model {requested!r} does not exist in the editor, and the default model "
            f"{names.default!r} is not offered either.",
            models,
            names,
        )
    raise _not_found(f"The model {requested!r} does not exist in the editor.", models, names)


# --------------------------------------------------------------------------- normalising


@dataclass(frozen=True)
class NameKey:
    """What identifies a model across spellings: its words, then its version numbers.

    `claude-sonnet-4-5-20250929`, `Claude-Sonnet-4.5` and `anthropic/claude-sonnet-4.5` all
    give family ("claude", "sonnet") and version (4, 5)."""

    family: tuple[str, ...]
    version: tuple[int, ...]


@dataclass(frozen=True)
class _Spelling:
    tokens: tuple[str, ...]  # lower case, split at separators, nothing dropped but the prefix
    key: NameKey


_SEPARATORS = re.compile(r"[-._]+")
_MARKER = re.compile(r"\[[^\]]*\]")  # Claude Code's `[1m]` (a context size, not a model)
_NUMBER = re.compile(r"[0-9]{1,4}")  # a version number; longer digit runs must match as words
_DATE = re.compile(r"20[0-9]{6}")  # 20250929
_YEAR = re.compile(r"20[0-9]{2}")  # 2025-09-29 comes as three tokens
_TWO_DIGITS = re.compile(r"[0-9]{2}")
_REVISION = re.compile(r"0[0-9]{2,3}")  # gemini-2.0-flash-001, gpt-4-0613
# Words that mark a release channel, not a different model.
_CHANNELS = frozenset({"latest", "preview", "exp", "experimental"})


def name_key(name: str) -> NameKey | None:
    """The normalised form of a model name; None when it has no words (`4.5`, ``)."""
    spelling = _spelling(name)
    return spelling.key if spelling else None


def match_name(requested: str, ids: Sequence[str]) -> tuple[str, How] | None:
    """The editor id that a spelling of `requested` names, and how: `normalised` (same
    NameKey) or `family` (the newest version of the same family); None when neither."""
    spelling = _spelling(requested)
    if spelling is None:
        return None
    index = _index(tuple(ids))
    same = index.by_key.get(spelling.key)
    if same:
        # The same spelling first, then the plainest id (`gpt-4o` over `gpt-4o-2024-11-20`).
        best = min(same, key=lambda entry: (entry[1].tokens != spelling.tokens, entry[0]))
        return best[2], "normalised"
    if len(spelling.key.family) < 2:
        return None  # `gpt-5.5` is one model, not the newest of a family called `gpt`
    newest = index.newest.get(spelling.key.family)
    return (newest, "family") if newest is not None else None


@dataclass(frozen=True)
class _NameIndex:
    # NameKey -> (rank, spelling, id); rank orders plain ids first, then editor order.
    by_key: dict[NameKey, list[tuple[tuple[int, int], _Spelling, str]]]
    newest: dict[tuple[str, ...], str]  # family -> id of its highest version


@lru_cache(maxsize=16)
def _index(ids: tuple[str, ...]) -> _NameIndex:
    # Built once per distinct model list: the editor's list changes rarely.
    by_key: dict[NameKey, list[tuple[tuple[int, int], _Spelling, str]]] = {}
    best: dict[tuple[str, ...], tuple[tuple[int, ...], tuple[int, int], str]] = {}
    for position, model_id in enumerate(ids):
        spelling = _spelling(model_id)
        if spelling is None:
            continue
        rank = (len(spelling.tokens), position)
        by_key.setdefault(spelling.key, []).append((rank, spelling, model_id))
        family, version = spelling.key.family, spelling.key.version
        current = best.get(family)
        # Highest version wins; on a tie the plainer id, then the earlier one.
        if current is None or (version, (-rank[0], -rank[1])) > (current[0], current[1]):
            best[family] = (version, (-rank[0], -rank[1]), model_id)
    return _NameIndex(by_key, {family: entry[2] for family, entry in best.items()})


def _spelling(name: str) -> _Spelling | None:
    text = name.lower().rsplit("/", 1)[-1]  # `models/`, `anthropic/`, `openai/`
    text = _MARKER.sub("", text).split("@", 1)[0]  # `[1m]`; Vertex's `@20250929`
    tokens = [token for token in _SEPARATORS.split(text) if token]
    kept = _without_suffixes(list(tokens))
    family = tuple(token for token in kept if not _NUMBER.fullmatch(token))
    if not family:
        return None
    version = [int(token) for token in kept if _NUMBER.fullmatch(token)]
    while version and version[-1] == 0:
        version.pop()  # `gemini-2.0-flash` is `gemini-2-flash`
    return _Spelling(tuple(tokens), NameKey(family, tuple(version)))


def _without_suffixes(tokens: list[str]) -> list[str]:
    """Drops trailing dates, revisions and release channels (at least one token stays)."""
    while len(tokens) > 1:
        last = tokens[-1]
        if last in _CHANNELS or _DATE.fullmatch(last) or _REVISION.fullmatch(last):
            del tokens[-1]
        elif len(tokens) > 3 and _is_date(tokens[-3], tokens[-2], last):
            del tokens[-3:]
        elif len(tokens) > 3 and tokens[-3] in _CHANNELS and _is_day(tokens[-2], last):
            del tokens[-2:]  # gemini-2.5-flash-preview-05-20
        else:
            break
    return tokens


def _is_date(year: str, month: str, day: str) -> bool:
    return bool(_YEAR.fullmatch(year)) and _is_day(month, day)


def _is_day(month: str, day: str) -> bool:
    return bool(_TWO_DIGITS.fullmatch(month) and _TWO_DIGITS.fullmatch(day))


# Each (requested, answered) pair is logged once; bounded so random names cannot grow it.
_reported: set[tuple[str, str]] = set()
_REPORTED_MAX = 1024


def _answered(requested: str, model: ModelInfo, how: How) -> ModelInfo:
    pair = (requested, model.id)
    if pair not in _reported:
        if len(_reported) >= _REPORTED_MAX:
            _reported.clear()
        _reported.add(pair)
        shown = requested if len(requested) <= 200 else requested[:200] + "..."
        log.info("The model %r is answered by the editor model %r (%s).", shown, model.id, how)
    return model


def listed_models(models: list[ModelInfo], names: ModelNames | None = None) -> list[dict[str, Any]]:
    """GET /v1/models entries: the editor's models, then each alias whose target exists.

    An alias is listed as its target's entry under the alias's name, with `alias_for` naming
    the target, so a client that checks the list before asking finds the name it knows. An
    alias that shadows an editor id replaces that entry (it wins in `resolve_model` too).
    """
    names = names or ModelNames()
    by_id = {model.id: model for model in models}
    # Copilot's utility aliases are not listed, `auto` once (copilot/internal_models.py);
    # a request naming one still reaches it through `resolve_model`.
    listed = [model_object(model) for model in offered(models) if model.id not in names.aliases]
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
    available = ", ".join(model.id for model in offered(models)) or "none"
    text = f"{message} Available models: {available}."
    usable = [alias for alias, target in names.aliases.items() if target in {m.id for m in models}]
    if usable:
        text += f" Aliases: {', '.join(usable)}."
    return ApiError(404, text, param="model", code="model_not_found")
