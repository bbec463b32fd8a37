"""Field paths in a Gemini body, and the 400 that names one.

Proto JSON takes `inlineData` and `inline_data` alike; pydantic's error locations use the
camelCase alias whichever the client sent. A path is always written in camelCase, as Google's
documentation spells the fields (`contents[2].parts[0].inlineData.data`).
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel, to_snake

from bridge.core.errors import ApiError, invalid_request

M = TypeVar("M", bound=BaseModel)


def bad_field(param: str, message: str, code: str = "invalid_value") -> ApiError:
    """A 400 about `param` (a camelCase path)."""
    return invalid_request(message, param=param, code=code)


@functools.lru_cache(maxsize=1024)
def spellings(name: str) -> tuple[str, str, str]:
    """`name` as given, in camelCase and in snake_case: pydantic's converters are regular
    expressions, ~100 us per request when asked afresh for every field of every body."""
    return name, to_camel(name), to_snake(name)


def key_in(raw: dict[str, Any], name: str) -> str | None:
    """The key under which `raw` holds the field `name` (either spelling), or None."""
    for key in spellings(name):
        if key in raw:
            return key
    return None


def field_of(raw: dict[str, Any], name: str) -> Any:
    """The value of the field `name` in either spelling (None when absent)."""
    key = key_in(raw, name)
    return None if key is None else raw[key]


def error_path(body: Any, loc: tuple[int | str, ...], missing: bool) -> str:
    """The camelCase path of a validation error's location, keeping only steps in the body
    (pydantic also names union branches), plus the missing field itself."""
    path, current = "", body
    for position, step in enumerate(loc):
        key = key_in(current, step) if isinstance(current, dict) and isinstance(step, str) else None
        if isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current):
            path, current = f"{path}[{step}]", current[step]
        elif key is not None and isinstance(step, str):
            name = to_camel(step)
            path, current = f"{path}.{name}" if path else name, current[key]
        elif missing and position == len(loc) - 1 and isinstance(step, str):
            name = to_camel(step)
            path = f"{path}.{name}" if path else name
    return path


def validated(body: dict[str, Any], model: type[M]) -> M:
    """`body` as the wire model `model`; a 400 naming the first field it gets wrong."""
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        # Unions report one error per branch; the most specific (longest) location explains best.
        first = max(exc.errors(), key=lambda err: len(err["loc"]))
        param = error_path(body, tuple(first["loc"]), first["type"] == "missing")
        raise invalid_request(
            f"Invalid value for `{param}`: {first['msg'].removeprefix('Value error, ')}.",
            param=param or None,
            code="invalid_value",
        ) from None
