"""A pydantic validation failure of a request body as one 400 that names the offending field."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bridge.core.errors import ApiError, invalid_request

M = TypeVar("M", bound=BaseModel)


def param_path(body: Any, loc: tuple[int | str, ...], missing: bool) -> str:
    """The JSON path of an error, e.g. `input[3].call_id` or `messages[3].content[0].id`.

    Pydantic's locations also name union branches and item or block tags; walking the body
    keeps only the steps that exist in it, plus the missing field itself.
    """
    path, current = "", body
    for position, step in enumerate(loc):
        if isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current):
            path, current = f"{path}[{step}]", current[step]
        elif isinstance(current, dict) and isinstance(step, str) and step in current:
            path, current = f"{path}.{step}" if path else step, current[step]
        elif missing and position == len(loc) - 1 and isinstance(step, str):
            path = f"{path}.{step}" if path else step
    return path


def validation_error(body: Any, exc: ValidationError) -> ApiError:
    # Unions report one error per branch; the most specific (longest) location explains best.
    first = max(exc.errors(), key=lambda err: len(err["loc"]))
    param = param_path(body, tuple(first["loc"]), first["type"] == "missing")
    return invalid_request(
        f"Invalid value for `{param}`: {first['msg'].removeprefix('Value error, ')}.",
        param=param or None,
        code="invalid_value",
    )


def json_object(body: Any, required: tuple[str, ...] = ()) -> dict[str, Any]:
    """`body` when it is a JSON object with each `required` field (not null); else a 400."""
    if not isinstance(body, dict):
        raise invalid_request("The request body must be a JSON object.", code="invalid_json")
    for name in required:
        if body.get(name) is None:
            raise invalid_request(
                f"Missing required parameter: `{name}`.",
                param=name,
                code="missing_required_parameter",
            )
    return body


def validated(body: dict[str, Any], model: type[M]) -> M:
    """`body` as the wire model `model`; a 400 naming the first field it gets wrong."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise validation_error(body, exc) from None
