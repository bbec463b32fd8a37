"""Anthropic's error envelope: `{"type": "error", "error": {"type", "message"}}`.

The core raises one neutral ApiError with an HTTP status; Anthropic's clients read the error's
`type`, which follows the status (docs.anthropic.com, "Errors"). The anthropic SDKs pick their
exception class by status, Claude Code retries 429/5xx/529 by status too, so the status the
core chose is kept and only the type is derived from it.
"""

from __future__ import annotations

from typing import Any

from bridge.core.errors import ApiError

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def error_type(status: int) -> str:
    known = ERROR_TYPES.get(status)
    if known is not None:
        return known
    return "api_error" if status >= 500 else "invalid_request_error"


def error_object(error: ApiError) -> dict[str, Any]:
    """The inner `error` object, as HTTP bodies and the stream's `error` event carry it."""
    message = error.message
    if error.overflow is not None:
        # Anthropic's own words, which Claude Code reads to know how much to compact.
        tokens, window = error.overflow
        message = f"prompt is too long: {tokens} tokens > {window} maximum"
    elif error.param and error.param not in message:
        message = f"{error.param}: {message}"  # Anthropic's messages name the field first
    return {"type": error_type(error.status), "message": message}


def anthropic_error_body(error: ApiError) -> dict[str, Any]:
    return {"type": "error", "error": error_object(error)}
