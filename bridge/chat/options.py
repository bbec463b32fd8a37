"""Chat Completions sampling options -> the editor's model options, and what is refused.

`max_completion_tokens` (or the older `max_tokens`) becomes the editor's `max_tokens`;
temperature, `stop` and the penalties pass on; `reasoning_effort` becomes the request's
reasoning effort, as in the Responses dialect (an unknown one is logged and dropped, as in the
Anthropic dialect); `top_p` has no way through Copilot (bridge/core/copilot/options.py). What
the editor cannot give (several choices, log probabilities, audio) is a 400 naming the param;
what has no meaning in the editor (seed, caching keys...) is accepted and logged by name at debug.
"""

from __future__ import annotations

import logging
from typing import Any

from bridge.chat import protocol
from bridge.chat.stop import stop_sequences
from bridge.chat.wire import IGNORED_KEYS, CompletionRequest
from bridge.core.chat_request import RequestOptions
from bridge.core.errors import unsupported_parameter
from bridge.core.key_names import shown_keys

log = logging.getLogger(__name__)

EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")


def refuse_unsupported(request: CompletionRequest) -> None:
    """400 for what the bridge cannot answer: several choices, log probabilities, audio."""
    if request.n is not None and request.n != 1:
        raise unsupported_parameter(
            "n", f"`n` must be 1: the editor gives one answer per request (got {request.n})."
        )
    if request.logprobs:
        raise unsupported_parameter(
            "logprobs", "`logprobs` is not supported: the editor reports no token probabilities."
        )
    if request.top_logprobs:
        raise unsupported_parameter(
            "top_logprobs",
            "`top_logprobs` is not supported: the editor reports no token probabilities.",
        )
    if request.audio is not None:
        raise unsupported_parameter(
            "audio", "Audio output is not supported: the editor's models answer in text."
        )
    if request.modalities and any(m != "text" for m in request.modalities):
        raise unsupported_parameter(
            "modalities",
            "`modalities`: only `text` is supported: the editor's models answer in text.",
        )
    for legacy in ("functions", "function_call"):
        if getattr(request, legacy) is not None:
            raise unsupported_parameter(
                legacy,
                f"`{legacy}` (the deprecated function calling) is not supported: "
                "send `tools` and `tool_choice` instead.",
            )


def max_output_tokens(request: CompletionRequest) -> int | None:
    # `max_completion_tokens` replaced `max_tokens`; a client sending both means the newer.
    return request.max_completion_tokens or request.max_tokens


def reasoning_effort(request: CompletionRequest) -> str | None:
    effort = request.reasoning_effort
    if effort is not None and effort not in EFFORTS:
        log.info("Ignoring unknown `reasoning_effort` %r", effort)
        return None
    return effort


def model_options(request: CompletionRequest) -> RequestOptions:
    return RequestOptions(
        max_tokens=max_output_tokens(request),
        temperature=request.temperature,
        stop=stop_sequences(request.stop),
        frequency_penalty=request.frequency_penalty,
        presence_penalty=request.presence_penalty,
        reasoning_effort=reasoning_effort(request),
        not_passed=("top_p",) if request.top_p is not None else (),
    )


def log_ignored_keys(request: CompletionRequest) -> None:
    """`log_ignored` for a body read on the fast path (which has no unknown keys)."""
    ignored = [key for key in IGNORED_KEYS if getattr(request, key) is not None]
    if ignored:
        log.debug("Accepted and ignored: %s", shown_keys(ignored))


def log_ignored(body: dict[str, Any]) -> None:
    """One debug line naming what was accepted without effect (names only: values may be
    personal, such as `user` or `safety_identifier`)."""
    ignored = [key for key in IGNORED_KEYS if body.get(key) is not None]
    options = body.get("stream_options")
    if isinstance(options, dict):
        ignored += [f"stream_options.{k}" for k in options if k != "include_usage"]
    if ignored:
        log.debug("Accepted and ignored: %s", shown_keys(ignored))
    known = set(protocol.CompletionRequest.model_fields) | set(IGNORED_KEYS)
    unknown = [str(key) for key in body if key not in known]
    if unknown:
        log.debug("Unknown keys ignored: %s", shown_keys(unknown))
