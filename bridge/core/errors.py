"""OpenAI-style errors: every failure a client sees has this one shape."""

from __future__ import annotations

from typing import Any

from bridge.core.editor_failures import Failure, classify
from bridge.core.parts import EditorErrorCode

# Editor failure -> (HTTP status, OpenAI error type, error code).
EDITOR_ERRORS: dict[EditorErrorCode, tuple[int, str, str]] = {
    "NotFound": (404, "invalid_request_error", "model_not_found"),
    "NoPermissions": (403, "permission_error", "permission_denied"),
    "Blocked": (429, "rate_limit_error", "rate_limit_exceeded"),
    "Unavailable": (503, "server_error", "editor_unavailable"),
    "Timeout": (504, "server_error", "editor_timeout"),
    "Other": (502, "server_error", "editor_error"),
}


class ApiError(Exception):
    """An error answered as `{"error": {"message", "type", "param", "code"}}`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
        overflow: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}
        # A prompt over the window: (its tokens, the window), which Anthropic's wording names.
        self.overflow = overflow

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


def invalid_request(message: str, *, param: str | None = None, code: str | None = None) -> ApiError:
    return ApiError(400, message, param=param, code=code)


def unsupported_parameter(param: str, message: str) -> ApiError:
    """A 400 for a field the bridge reads but cannot honour (several choices, audio...)."""
    return invalid_request(message, param=param, code="unsupported_parameter")


# The editor asks the user once whether an extension may use another's models (Copilot's);
# until they agree, every request fails with NoPermissions. Say where to agree.
GRANT_ACCESS_HINT = (
    "Maestro Bridge may not use this model yet. Grant access in the editor: run "
    '"Maestro Bridge: Authorize Model Access" from the Command Palette and allow it, or '
    "allow Maestro Bridge under Accounts > Manage Language Model Access."
)


# Copilot's quota: OpenAI's own code for spent credit, which clients do not retry.
QUOTA_HINT = (
    "Your GitHub Copilot quota (premium requests or AI credits) is spent; requests fail until "
    "it renews or you add more in your GitHub Copilot settings."
)
MODEL_NOT_SUPPORTED_HINT = (
    "GitHub Copilot does not offer this model to other extensions yet: enable it by picking it "
    "once in the Copilot Chat model picker (and accepting its terms), then try again."
)
CONTEXT_HINT = (
    "The input does not fit the model's context window as GitHub Copilot counts it (its own "
    "prompt and the tools' definitions included). Shorten the conversation or its tool outputs "
    "and try again."
)
CONTENT_FILTER_HINT = "GitHub Copilot's content filter stopped this request."
UPSTREAM_UNAUTHORIZED = (
    "GitHub Copilot's service refused the editor's sign-in; sign in to GitHub Copilot in the "
    "editor again."
)


def from_editor(code: EditorErrorCode, message: str, name: str = "") -> ApiError:
    """The HTTP error for an editor failure (`name`: the provider's Error.name, if any)."""
    return from_failure(classify(code, name, message))


def from_failure(failure: Failure) -> ApiError:
    kind, message = failure.kind, failure.message
    if kind == "quota":
        return ApiError(
            429, _joined(QUOTA_HINT, message), type="insufficient_quota", code="insufficient_quota"
        )
    if kind == "rate_limited":
        retry = str(failure.retry_after or 1)
        status, type_, err_code = EDITOR_ERRORS["Blocked"]
        return ApiError(status, message, type=type_, code=err_code, headers={"Retry-After": retry})
    if kind == "no_permissions":
        status, type_, err_code = EDITOR_ERRORS["NoPermissions"]
        if GRANT_ACCESS_HINT not in message:
            message = _joined(message, GRANT_ACCESS_HINT)
        return ApiError(status, message, type=type_, code=err_code)
    if kind == "model_not_supported":
        return ApiError(404, _joined(message, MODEL_NOT_SUPPORTED_HINT), code="model_not_supported")
    if kind == "context_length":
        return context_error(message, failure.overflow)
    if kind == "content_filter":
        return ApiError(400, _joined(CONTENT_FILTER_HINT, message), code="content_filter")
    if kind == "invalid_request":
        return invalid_request(message, code="invalid_request_error")
    if kind == "upstream":
        return _upstream(failure)
    editor_code: EditorErrorCode = {
        "not_found": "NotFound",
        "unavailable": "Unavailable",
        "timeout": "Timeout",
    }.get(kind, "Other")  # type: ignore[assignment]
    status, type_, err_code = EDITOR_ERRORS[editor_code]
    return ApiError(status, message, type=type_, code=err_code)


def context_error(message: str, overflow: tuple[int, int] | None) -> ApiError:
    """400 `context_length_exceeded`; with the numbers, OpenAI's own wording (which clients
    such as LiteLLM read) and `overflow`, from which Anthropic's and Google's envelopes word
    theirs (anthropic/errors.py, gemini/errors.py)."""
    if overflow is None:
        return ApiError(400, _joined(message, CONTEXT_HINT), code="context_length_exceeded")
    tokens, window = overflow
    worded = (
        f"This model's maximum context length is {window} tokens. However, your messages "
        f"resulted in {tokens} tokens (GitHub Copilot's count: its own prompt and the tools' "
        "definitions included). Please reduce the length of the messages."
    )
    return ApiError(400, worded, code="context_length_exceeded", overflow=overflow)


def _upstream(failure: Failure) -> ApiError:
    """The model service's own status when the request was at fault (4xx); a 5xx is its
    failure, not the client's: 502. A 401 is the editor's sign-in, not the client's key."""
    status = failure.upstream_status or 502
    message = failure.message or f"GitHub Copilot's service answered {status}."
    if status == 401:
        return ApiError(
            403, _joined(message, UPSTREAM_UNAUTHORIZED), type="permission_error", code="upstream"
        )
    if 400 <= status < 500:
        type_ = "rate_limit_error" if status == 429 else "invalid_request_error"
        return ApiError(status, message, type=type_, code="upstream_error")
    return ApiError(502, message, type="server_error", code="editor_error")


def _joined(first: str, second: str) -> str:
    first = first.strip()
    if not first:
        return second
    if not second:
        return first
    return f"{first.rstrip('. ')}. {second}"


# A failed response's `error.code` -> the HTTP status and type of its non-streaming answer.
_FAILURE_CODES: dict[str, tuple[int, str]] = {
    "insufficient_quota": (429, "insufficient_quota"),
    "model_not_supported": (404, "invalid_request_error"),
    "context_length_exceeded": (400, "invalid_request_error"),
    "content_filter": (400, "invalid_request_error"),
    "invalid_request_error": (400, "invalid_request_error"),
    "upstream_error": (400, "invalid_request_error"),
}


def from_failure_code(code: str, message: str) -> ApiError:
    """The HTTP error for a failed response's `error.code` (the non-streaming answer)."""
    known = _FAILURE_CODES.get(code)
    if known is not None:
        return ApiError(known[0], message, type=known[1], code=code)
    for editor_code, (_, _, err_code) in EDITOR_ERRORS.items():
        if err_code == code:
            return from_editor(editor_code, message)
    return from_editor("Other", message)
