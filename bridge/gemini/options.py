"""`generationConfig` -> the editor's model options, and what is refused or ignored.

`maxOutputTokens` (as the editor's `max_tokens`), `temperature`, `stopSequences` and the
penalties pass on (`topP` has no way through Copilot); `thinkingConfig` becomes the editor's
reasoning effort (`thinkingLevel` as it is, a `thinkingBudget` as low/medium/high as in the
Anthropic dialect, 0 as `none`, -1 "dynamic" as the model's default). What the editor cannot
give (several candidates, log probabilities, audio or image output, a cached context) is a 400
naming the field; what has no meaning in the editor (`topK`, `seed`,
`safetySettings`...) is accepted and logged by name at debug.
"""

from __future__ import annotations

import logging
from typing import Any

from bridge.core.chat_request import RequestOptions
from bridge.core.errors import unsupported_parameter
from bridge.core.key_names import shown_keys
from bridge.core.reasoning import budget_effort
from bridge.gemini.fields import key_in
from bridge.gemini.wire import GenerateContentRequest, GenerationConfig

log = logging.getLogger(__name__)

CONFIG = "generationConfig"
LEVELS = {"minimal": "minimal", "low": "low", "medium": "medium", "high": "high"}
IGNORED_CONFIG = (
    "topK",
    "seed",
    "mediaResolution",
    "audioTimestamp",
    "enableEnhancedCivicAnswers",
    "enableAffectiveDialog",
    "routingConfig",
    "modelSelectionConfig",
)
IGNORED_BODY = ("safetySettings", "labels", "model")
HANDLED_CONFIG = (
    "temperature",
    "topP",
    "presencePenalty",
    "frequencyPenalty",
    "candidateCount",
    "maxOutputTokens",
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "responseModalities",
    "thinkingConfig",
    "responseLogprobs",
    "logprobs",
    "speechConfig",
)


def refuse_unsupported(request: GenerateContentRequest) -> None:
    """400 for what the bridge cannot answer, naming the field."""
    if request.cached_content:
        raise unsupported_parameter(
            "cachedContent",
            "`cachedContent` is not supported: Maestro Bridge keeps no cached contents; send "
            "the whole conversation in `contents`.",
        )
    config = request.generation_config
    if config is None:
        return
    if config.candidate_count is not None and config.candidate_count != 1:
        raise unsupported_parameter(
            f"{CONFIG}.candidateCount",
            f"`{CONFIG}.candidateCount` must be 1: the editor gives one answer per request "
            f"(got {config.candidate_count}).",
        )
    if config.response_logprobs:
        raise unsupported_parameter(
            f"{CONFIG}.responseLogprobs",
            f"`{CONFIG}.responseLogprobs` is not supported: the editor reports no token "
            "probabilities.",
        )
    if config.logprobs is not None:
        raise unsupported_parameter(
            f"{CONFIG}.logprobs",
            f"`{CONFIG}.logprobs` is not supported: the editor reports no token probabilities.",
        )
    modalities = config.response_modalities or []
    if any(modality.upper() != "TEXT" for modality in modalities):
        raise unsupported_parameter(
            f"{CONFIG}.responseModalities",
            f"`{CONFIG}.responseModalities`: only TEXT is supported: the editor's models "
            "answer in text.",
        )
    if config.speech_config is not None:
        raise unsupported_parameter(
            f"{CONFIG}.speechConfig",
            f"`{CONFIG}.speechConfig` is not supported: the editor's models answer in text.",
        )


def reasoning_effort(config: GenerationConfig) -> str | None:
    """The editor's `reasoningEffort`, or None to leave the model its default."""
    thinking = config.thinking_config
    if thinking is None:
        return None
    if thinking.thinking_level is not None:
        effort = LEVELS.get(thinking.thinking_level.lower())
        if effort is None:
            log.info("Ignoring unknown `thinkingConfig.thinkingLevel` %r", thinking.thinking_level)
        return effort
    budget = thinking.thinking_budget
    if budget is None or budget < 0:  # -1: the model decides
        return None
    return "none" if budget == 0 else budget_effort(budget)


def include_thoughts(request: GenerateContentRequest) -> bool:
    config = request.generation_config
    thinking = config.thinking_config if config is not None else None
    return thinking is not None and thinking.include_thoughts is True


def model_options(request: GenerateContentRequest, stops: list[str]) -> RequestOptions:
    """The sampling options, with the stop sequences already checked (stop.py)."""
    config = request.generation_config
    if config is None:
        return RequestOptions(stop=stops)
    return RequestOptions(
        max_tokens=config.max_output_tokens,
        temperature=config.temperature,
        stop=stops,
        frequency_penalty=config.frequency_penalty,
        presence_penalty=config.presence_penalty,
        reasoning_effort=reasoning_effort(config),
        not_passed=("topP",) if config.top_p is not None else (),
    )


def log_ignored(body: dict[str, Any]) -> None:
    """One debug line naming what was accepted without effect (names only, never values)."""
    ignored = [name for name in IGNORED_BODY if key_in(body, name) is not None]
    config = body.get(key_in(body, CONFIG) or CONFIG)
    unknown_config: list[str] = []
    if isinstance(config, dict):
        ignored += [f"{CONFIG}.{n}" for n in IGNORED_CONFIG if key_in(config, n) is not None]
        known = {key_in(config, n) for n in IGNORED_CONFIG + HANDLED_CONFIG}
        unknown_config = [f"{CONFIG}.{key}" for key in config if key not in known]
    if ignored:
        log.debug("Accepted and ignored: %s", shown_keys(ignored))
    known_body = {key_in(body, n) for n in (*IGNORED_BODY, *BODY_FIELDS)}
    unknown = [str(key) for key in body if key not in known_body] + unknown_config
    if unknown:
        log.debug("Unknown keys ignored: %s", shown_keys(unknown))


BODY_FIELDS = (
    "contents",
    "systemInstruction",
    "tools",
    "toolConfig",
    "generationConfig",
    "cachedContent",
)
