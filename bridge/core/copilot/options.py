"""A client's sampling options -> what reaches Copilot's model.

Copilot passes five `modelOptions` keys to the model (`max_tokens`, `temperature`, `stop`,
`frequency_penalty`, `presence_penalty`) and drops every other key from the model's request;
it reads the reasoning effort from the request's `modelConfiguration` (VS Code fills that from
the consumer's `configuration` option: the editor extension sends both). `top_p`, a reasoning
summary and a response format have no way through: docs/github-copilot.md says so, and the
bridge logs them at debug. The bridge still cuts the output at `max_tokens` and at the stop
sequences itself (a provider that ignores them, and a stop sequence that spans two streamed
parts).
`stop` goes as one string: Copilot's option check admits a list but then keeps only numbers,
booleans and strings (`LanguageModelOptions.convert`), so a list would vanish. The first stop
sequence ends the model's answer natively; the bridge cuts at every one of them as before.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from bridge.core.parts import ModelInfo
from bridge.core.reasoning import is_claude, model_effort

log = logging.getLogger(__name__)

# Copilot reads `_enableThinking` from the raw `modelOptions` (languageModelAccess.ts,
# `internalModelOptions`); its Messages path (Claude) sends no thinking, and so no effort,
# without it (messagesApi.ts).
ENABLE_THINKING = "_enableThinking"


@dataclass(frozen=True)
class RequestOptions:
    """What a dialect asks of the model, in the bridge's own terms (None: not given)."""

    max_tokens: int | None = None
    temperature: float | None = None
    stop: list[str] = field(default_factory=list)
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    reasoning_effort: str | None = None
    # Given by the client but with no way to the model: named in a debug line.
    not_passed: tuple[str, ...] = ()


def model_options(options: RequestOptions, model: ModelInfo | None = None) -> dict[str, Any]:
    """`modelOptions` under Copilot's keys, only what the client gave."""
    given: dict[str, Any] = {
        "max_tokens": output_limit(options.max_tokens, model),
        "temperature": options.temperature,
        "stop": options.stop[0] if options.stop else None,
        "frequency_penalty": options.frequency_penalty,
        "presence_penalty": options.presence_penalty,
    }
    if options.not_passed:
        log.debug(
            "Not passed to the model (Copilot has no option): %s", ", ".join(options.not_passed)
        )
    thinks = model_effort(options.reasoning_effort) is not None
    if thinks and model is not None and is_claude(model.family or model.id):
        given[ENABLE_THINKING] = True
    return {key: value for key, value in given.items() if value is not None}


def output_limit(asked: int | None, model: ModelInfo | None) -> int | None:
    """The client's output limit, at most the model's: Copilot sends `max_tokens` upstream as
    given, and the model's service refuses one above its limit. The model's limit is what the
    editor reports (`maxOutputTokens`); VS Code 1.139's model objects do not carry it, and
    then the client's limit goes as asked (Copilot's own default applies when none is)."""
    if asked is None or model is None or model.maxOutputTokens <= 0:
        return asked
    if asked > model.maxOutputTokens:
        log.debug(
            "max_tokens %d is above %s's %d: sent as %d",
            asked,
            model.id,
            model.maxOutputTokens,
            model.maxOutputTokens,
        )
        return model.maxOutputTokens
    return asked


def model_configuration(options: RequestOptions) -> dict[str, Any]:
    """`modelConfiguration`: the reasoning effort, as a level the model takes."""
    effort = model_effort(options.reasoning_effort)
    if effort is None:
        if options.reasoning_effort is not None:
            log.debug("Reasoning effort %r: the model's default", options.reasoning_effort)
        return {}
    return {"reasoningEffort": effort}
