"""A client's sampling options -> what reaches Copilot's model.

Copilot passes five `modelOptions` keys to the model (`max_tokens`, `temperature`, `stop`,
`frequency_penalty`, `presence_penalty`) and drops every other key silently; it reads the
reasoning effort from the request's `modelConfiguration` instead (where the model's
configuration schema has it: the editor extension checks). `top_p`, a reasoning summary and a
response format have no way through: README says so, and the bridge logs them at debug.
The bridge still cuts the output at `max_tokens` and at the stop sequences itself (a provider
that ignores them, and a stop sequence that spans two streamed parts).
`stop` goes as one string: Copilot's option check admits a list but then keeps only numbers,
booleans and strings (`LanguageModelOptions.convert`), so a list would vanish. The first stop
sequence ends the model's answer natively; the bridge cuts at every one of them as before.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


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


def model_options(options: RequestOptions) -> dict[str, Any]:
    """`modelOptions` under Copilot's keys, only what the client gave."""
    given: dict[str, Any] = {
        "max_tokens": options.max_tokens,
        "temperature": options.temperature,
        "stop": options.stop[0] if options.stop else None,
        "frequency_penalty": options.frequency_penalty,
        "presence_penalty": options.presence_penalty,
    }
    if options.not_passed:
        log.debug(
            "Not passed to the model (Copilot has no option): %s", ", ".join(options.not_passed)
        )
    return {key: value for key, value in given.items() if value is not None}


def model_configuration(options: RequestOptions) -> dict[str, Any]:
    """`modelConfiguration`: the reasoning effort, where the client gave one."""
    if options.reasoning_effort is None:
        return {}
    return {"reasoningEffort": options.reasoning_effort}
