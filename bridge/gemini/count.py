"""`:countTokens` bodies -> the editor request whose input is counted.

Google takes either `{contents}` (the conversation alone) or `{generateContentRequest}` (a whole
`:generateContent` body: system instruction and tools count too). Either is planned as that
request would be, so the count is of what the editor would be sent.
"""

from __future__ import annotations

from typing import Any

from bridge.core.backend import ChatRequest, ModelInfo
from bridge.core.errors import ApiError
from bridge.core.validation_errors import json_object
from bridge.gemini.fields import bad_field, field_of, key_in
from bridge.gemini.plan import parse_generate_request, plan_generate

WHOLE = "generateContentRequest"


def _prefixed(error: ApiError, prefix: str) -> ApiError:
    """The same 400 with its field path inside `prefix` (the nested body)."""
    param = f"{prefix}.{error.param}" if error.param else prefix
    message = (
        error.message.replace(f"`{error.param}`", f"`{param}`") if error.param else error.message
    )
    return ApiError(error.status, message, param=param, code=error.code, headers=error.headers)


def count_request(body: Any, model: ModelInfo) -> ChatRequest:
    """The editor request to count for a `:countTokens` body; 400 naming the field when wrong."""
    body = json_object(body)
    whole = field_of(body, WHOLE)
    if whole is None:
        if key_in(body, "contents") is None:
            raise bad_field(
                "contents",
                f"Missing required parameter: `contents` (or `{WHOLE}`).",
                "missing_required_parameter",
            )
        request = parse_generate_request({"contents": field_of(body, "contents")})
        return plan_generate(request, model.id, model, stream=False).chat
    if key_in(body, "contents") is not None:
        raise bad_field(WHOLE, f"Give `contents` or `{WHOLE}`, not both.")
    try:
        request = parse_generate_request(whole)
        return plan_generate(request, model.id, model, stream=False).chat
    except ApiError as error:
        raise _prefixed(error, WHOLE) from None
