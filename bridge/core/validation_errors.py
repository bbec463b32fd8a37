"""A pydantic validation failure of a request body as one 400 that names the offending field."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bridge.core.errors import ApiError, invalid_request


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
