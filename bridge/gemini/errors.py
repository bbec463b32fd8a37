"""Google's error envelope: `{"error": {"code": <HTTP status>, "message", "status", "details"}}`.

The core raises one neutral ApiError with an HTTP status; Google's clients read `code` (the
google-genai SDKs pick their exception class by it) and `status`, the google.rpc code name that
goes with the HTTP status. `details` carries what Google's own errors carry where the bridge
knows it: the field at fault in a 400 (`google.rpc.BadRequest`) and, with a `Retry-After`, how
long to wait (`google.rpc.RetryInfo`, which Gemini CLI reads to time its retry).
"""

from __future__ import annotations

from typing import Any

from bridge.core.errors import ApiError

RPC_STATUS: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_TYPES = "type.googleapis.com/google.rpc."


def rpc_status(status: int) -> str:
    known = RPC_STATUS.get(status)
    if known is not None:
        return known
    return "INTERNAL" if status >= 500 else "FAILED_PRECONDITION"


def _details(error: ApiError) -> list[dict[str, Any]]:
    details: list[dict[str, Any]] = []
    if error.param and error.status == 400:
        violation = {"field": error.param, "description": error.message}
        details.append({"@type": _TYPES + "BadRequest", "fieldViolations": [violation]})
    retry_after = error.headers.get("Retry-After", "")
    if retry_after.isdigit():
        details.append({"@type": _TYPES + "RetryInfo", "retryDelay": f"{int(retry_after)}s"})
    return details


def gemini_error_body(error: ApiError) -> dict[str, Any]:
    message = error.message
    if error.overflow is not None:
        # Gemini's own words for a prompt over the window, which its clients recognise.
        tokens, window = error.overflow
        message = (
            f"The input token count ({tokens}) exceeds the maximum number of tokens allowed "
            f"({window})."
        )
    body: dict[str, Any] = {
        "code": error.status,
        "message": message,
        "status": rpc_status(error.status),
    }
    details = _details(error)
    if details:
        body["details"] = details
    return {"error": body}


def api_error_of(body: dict[str, Any]) -> ApiError:
    """The ApiError an error chunk was made of (the non-streaming answer raises it)."""
    error = body.get("error") or {}
    status = error.get("code")
    if not isinstance(status, int) or not 400 <= status <= 599:
        status = 502
    return ApiError(status, str(error.get("message", "")), type="server_error")
