"""The editor's `usage` data part (Copilot's, in OpenAI's chat-completions shape) -> counts.

Only a report that says how many tokens the prompt took, with no negative count, is used;
anything else is ignored (and the bridge counts with the editor's tokenizer instead), since
a usage of zero input tokens or a negative total would mislead a client more than a count.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import Any, NamedTuple

log = logging.getLogger(__name__)


class UsageCounts(NamedTuple):
    """Token counts of one answer, whichever dialect reports them."""

    input_tokens: int
    output_tokens: int  # reasoning included
    reasoning_tokens: int = 0
    cached_tokens: int = 0  # of the input, read from the provider's cache
    # Of the input, written to the provider's cache (Anthropic bills it apart; Copilot's
    # Messages path reports it as `prompt_tokens_details.cache_creation_input_tokens`).
    cache_write_tokens: int = 0
    # What Copilot's cloud billed, in nano AI credits (`copilot_usage.total_nano_aiu`); None
    # when it did not say.
    nano_credits: int | None = None


def _nano_credits(raw: dict[str, Any]) -> int | None:
    """Copilot's `copilot_usage.total_nano_aiu` (a non-negative number), else None."""
    billed = raw.get("copilot_usage")
    value = billed.get("total_nano_aiu") if isinstance(billed, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    return round(value) if value < 2**62 else None


def _count(raw: dict[str, Any], key: str) -> int | None:
    """A non-negative whole number at `key` (0 when absent), else None."""
    value = raw.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _detail(raw: dict[str, Any], details: str, key: str) -> int | None:
    """A count inside a details object (0 when there is none), else None."""
    value = raw.get(details)
    if value is None:
        return 0
    return _count(value, key) if isinstance(value, dict) else None


def usage_counts(data: str) -> UsageCounts | None:
    """The counts of a base64 `usage` part, or None when they cannot be trusted."""
    try:
        raw = json.loads(base64.b64decode(data, validate=True))
    except (ValueError, binascii.Error):
        log.warning("Ignoring a malformed usage part from the editor")
        return None
    if not isinstance(raw, dict) or "prompt_tokens" not in raw:
        log.warning("Ignoring a usage part without prompt_tokens from the editor")
        return None
    counts = [
        _count(raw, "prompt_tokens"),
        _count(raw, "completion_tokens"),
        _detail(raw, "completion_tokens_details", "reasoning_tokens"),
        _detail(raw, "prompt_tokens_details", "cached_tokens"),
        _detail(raw, "prompt_tokens_details", "cache_creation_input_tokens"),
    ]
    if any(count is None for count in counts):
        log.warning("Ignoring a usage part with a negative or non-integer count from the editor")
        return None
    input_tokens, output_tokens, reasoning, cached, written = (int(c or 0) for c in counts)
    return UsageCounts(input_tokens, output_tokens, reasoning, cached, written, _nano_credits(raw))


def usage_of_part(mime_type: str, data: str) -> UsageCounts | None:
    """The counts of a data part when it is a trustworthy `usage` report, else None."""
    if mime_type != "usage":
        log.debug("Ignoring data part of type %s from the editor", mime_type)
        return None
    return usage_counts(data)
