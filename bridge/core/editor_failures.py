"""What an editor failure means, read from its code, its error name and its message.

The provider behind `vscode.lm` (GitHub Copilot) reports most failures as a plain `Error`
whose only signal is its `name` or its wording (microsoft/vscode-copilot-chat,
languageModelAccess.ts and chatMLFetcher.ts): a spent quota is named `ChatQuotaExceeded`, a
rate limit `ChatRateLimited`, an answer cut at the output limit says `Response too long.`, an
upstream rejection `Request Failed: <status> <body>` (a prompt over the model's window among
them: CAPI's 400 `model_max_prompt_tokens_exceeded`, "prompt token count of N exceeds the limit
of M", whose numbers are kept for the dialects that state them). `classify` turns that into one
`Failure` that the HTTP side (core/errors.py) and the answer stream (core/answer.py) both act
on, so each condition gets one status in every dialect instead of a 502.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from bridge.core.parts import INPUT_TOO_LONG, EditorError, EditorErrorCode

FailureKind = Literal[
    "quota",  # the user's Copilot quota or credits are spent: retrying does not help
    "rate_limited",  # too many requests: retry after a while
    "no_permissions",  # the user has not let Maestro Bridge use the model
    "not_found",  # no such model
    "model_not_supported",  # the model must first be enabled in Copilot Chat
    "content_filter",  # a content, off-topic or Responsible AI filter stopped it
    "context_length",  # the prompt does not fit the model's window
    "too_long",  # the answer reached the model's output limit (not a failure)
    "invalid_request",  # the provider refused the request as malformed
    "upstream",  # the model's service answered with an HTTP error
    "unavailable",  # the editor is gone
    "timeout",  # the editor did not answer in time
    "other",  # anything else: the editor's failure
]

# Seconds to wait when a rate limit does not say how long.
DEFAULT_RETRY_AFTER = 10

QUOTA_NAME = "ChatQuotaExceeded"
RATE_LIMITED_NAME = "ChatRateLimited"
TOO_LONG_MESSAGE = "Response too long."
TOKEN_LIMIT_MESSAGE = "Message exceeds token limit."
# chatMLFetcher.ts: a content-filter finish, the intent classifier, a 422 from the RAI service.
_FILTER_MARKERS = (
    "Response got filtered.",
    # Copilot 0.67's words for a Claude `refusal` stop (its chat fetcher's "refusal" result).
    "Model declined to respond.",
    "filtered as off_topic by intent classifier",
    "Filtered by Responsible AI Service",
)
# Copilot's own checks of a request (languageModelAccess.ts) and CAPI's "Bad request: ": the
# request is at fault, so a 400 rather than the editor's 502.
_INVALID_REQUEST_PREFIXES = (
    "Invalid tool name ",
    "Cannot have more than ",
    "LanguageModelChatToolMode.Required is not supported",
    "Invalid request: ",
    "Bad request: ",
    "Image does not match the provided media type",
)
_REQUEST_FAILED = re.compile(r"Request Failed: (\d{3})\s*(.*)", re.DOTALL)
# CAPI's refusal of a prompt over the model's window (its code, then its wording).
PROMPT_TOO_LONG_CODE = "model_max_prompt_tokens_exceeded"
_PROMPT_TOKENS = re.compile(
    r"prompt token count of (\d+) exceeds the limit of (\d+)", re.IGNORECASE
)
# Copilot's refusal of its utility aliases to anyone but VS Code itself (languageModelAccess.ts).
CORE_ONLY_MARKER = "is only available to VS Code core."
# Copilot's ChatRateLimited message is the cloud's own `message` (chatMLFetcher.ts drops the
# Retry-After header), and that message may say how long: "retry after 42 seconds", "try
# again in 1 minute 30 seconds", "wait 30s", "Retry-After: 12". Without a number: the default.
_RETRY_PHRASE = re.compile(r"(?:retry|try again|wait)[^0-9\n]{0,24}?(?=\d)", re.IGNORECASE)
_DURATION = re.compile(
    r"\s*(?:and\s+|,\s*)?(\d{1,6})\s*(seconds?|secs?|s\b|minutes?|mins?|m\b|hours?|hrs?|h\b)?",
    re.IGNORECASE,
)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600}


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    message: str  # the provider's message, or the upstream's own when it gave one
    retry_after: int | None = None  # seconds, for a rate limit
    upstream_status: int | None = None  # the model service's HTTP status, when it gave one
    # A prompt over the window, as the model's service counted it: (its tokens, the limit).
    overflow: tuple[int, int] | None = None


def classify(code: EditorErrorCode, name: str, message: str) -> Failure:
    """The meaning of an editor failure (name first: it is the provider's own signal)."""
    if name == QUOTA_NAME:
        return Failure("quota", message)
    if name == INPUT_TOO_LONG:  # the editor's own count refused it (`countInput`)
        return Failure("context_length", message)
    if name == RATE_LIMITED_NAME or code == "Blocked":
        return Failure("rate_limited", message, retry_after=retry_after_seconds(message))
    if code == "NoPermissions":
        return Failure("no_permissions", message)
    if code == "NotFound":
        return Failure("not_found", message)
    if code == "Unavailable":
        return Failure("unavailable", message)
    if code == "Timeout":
        return Failure("timeout", message)
    return _classify_message(message)


def classify_error(error: EditorError) -> Failure:
    return classify(error.code, error.name, error.message)


def _classify_message(message: str) -> Failure:
    text = message.strip()
    if text == TOO_LONG_MESSAGE:
        return Failure("too_long", message)
    if text == TOKEN_LIMIT_MESSAGE:
        return Failure("context_length", message)
    if any(marker in text for marker in _FILTER_MARKERS):
        return Failure("content_filter", message)
    if PROMPT_TOO_LONG_CODE in text or _PROMPT_TOKENS.search(text):
        return _prompt_too_long(text, message)
    if CORE_ONLY_MARKER in text:
        return Failure("not_found", message)
    if "model_not_supported" in text:
        return Failure("model_not_supported", _upstream_message(text) or message)
    if text.startswith(_INVALID_REQUEST_PREFIXES):
        return Failure("invalid_request", message)
    found = _REQUEST_FAILED.match(text)
    if found is not None:
        body = found.group(2).strip()
        return Failure("upstream", _upstream_message(body) or body, upstream_status=int(found[1]))
    return Failure("other", message)


def _prompt_too_long(text: str, message: str) -> Failure:
    """CAPI's 400 for a prompt over the window, with its numbers when it gave them."""
    found = _PROMPT_TOKENS.search(text)
    overflow = (int(found[1]), int(found[2])) if found else None
    return Failure("context_length", _upstream_message(text) or message, overflow=overflow)


def _upstream_message(text: str) -> str | None:
    """The `message` of a JSON error body (`{"error": {"message"}}` or `{"message"}`)."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        body = json.loads(text[start:])
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    inner = body.get("error")
    for holder in (inner, body):
        if isinstance(holder, dict) and isinstance(holder.get("message"), str):
            return str(holder["message"]) or None
    return None


def retry_after_seconds(message: str) -> int:
    """How long the message says to wait, in whole seconds; the default when it does not."""
    phrase = _RETRY_PHRASE.search(message)
    if phrase is None:
        return DEFAULT_RETRY_AFTER
    seconds, at = 0, phrase.end()
    while (found := _DURATION.match(message, at)) is not None:
        unit = (found.group(2) or "s")[0].lower()
        seconds += int(found.group(1)) * _UNIT_SECONDS.get(unit, 1)
        at = found.end()
        if found.group(2) is None:
            break  # a bare number ("Retry-After: 12") is the whole duration
    return max(1, seconds)
