"""OpenAI-style errors: every failure a client sees has this one shape."""

from __future__ import annotations

from typing import Any

from bridge.core.backend import EditorErrorCode

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
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers or {}

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


def from_editor(code: EditorErrorCode, message: str) -> ApiError:
    status, type_, err_code = EDITOR_ERRORS.get(code, EDITOR_ERRORS["Other"])
    headers = {"Retry-After": "10"} if status == 429 else None
    if code == "NoPermissions" and GRANT_ACCESS_HINT not in message:
        message = f"{message.rstrip('. ')}. {GRANT_ACCESS_HINT}" if message else GRANT_ACCESS_HINT
    return ApiError(status, message, type=type_, code=err_code, headers=headers)


def from_failure_code(code: str, message: str) -> ApiError:
    """The HTTP error for a failed response's `error.code` (the non-streaming answer)."""
    for editor_code, (_, _, err_code) in EDITOR_ERRORS.items():
        if err_code == code:
            return from_editor(editor_code, message)
    return from_editor("Other", message)
