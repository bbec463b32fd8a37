"""Whether a tool schema is valid JSON Schema draft 7, as Copilot's Ajv check reads it.

Copilot validates a schema against the draft-7 meta-schema with Ajv's `coerceTypes` (so a
number written as a string passes). This checks the keywords' shapes the same way, without
a runtime dependency; other keywords are free, as in the meta-schema.
"""

from __future__ import annotations

from typing import Any

TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_SCHEMA_ONE = (
    "additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if",
    "then", "else",
)  # fmt: skip
_COUNTS = (
    "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
)  # fmt: skip
_NUMBERS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_STRINGS = ("$id", "$schema", "$ref", "$comment", "title", "description", "pattern", "format")


def draft7_problem(schema: Any, path: str = "", depth: int = 0) -> str | None:
    """The first thing that makes `schema` invalid draft 7, as `path: problem`; None if valid."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"{path or '/'} must be an object or a boolean"
    if depth > 64:
        return None
    own = _own_problem(schema)
    if own is not None:
        return f"{path}/{own}"
    for key, child in _children(schema):
        found = draft7_problem(child, f"{path}/{key}", depth + 1)
        if found is not None:
            return found
    return None


def _own_problem(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if kind is not None and not _valid_type(kind):
        return "type must be a type name or a list of unique type names"
    required = schema.get("required")
    if required is not None and not (
        isinstance(required, list)
        and all(isinstance(item, str) for item in required)
        and len(set(required)) == len(required)
    ):
        return "required must be a list of unique strings"
    if "enum" in schema and not isinstance(schema["enum"], list):
        return "enum must be a list"
    for key in _COUNTS:
        if key in schema and not _count(schema[key]):
            return f"{key} must be a non-negative integer"
    for key in _NUMBERS:
        if key in schema and _number(schema[key]) is None:
            return f"{key} must be a number"
    for key in _STRINGS:
        if key in schema and not isinstance(schema[key], str | int | float | bool):
            return f"{key} must be a string"
    for key in (*_SCHEMA_MAPS, "dependencies"):
        if key in schema and not isinstance(schema[key], dict):
            return f"{key} must be an object"
    for key in _SCHEMA_LISTS:
        value = schema.get(key)
        if key in schema and not (isinstance(value, list) and value):
            return f"{key} must be a non-empty list"
    items = schema.get("items")
    if "items" in schema and not isinstance(items, dict | bool | list):
        return "items must be a schema or a list of schemas"
    return None


def _children(schema: dict[str, Any]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for key in _SCHEMA_MAPS:
        found.extend((f"{key}/{name}", value) for name, value in schema.get(key, {}).items())
    for name, value in schema.get("dependencies", {}).items():
        if not isinstance(value, list):  # a list of property names is not a schema
            found.append((f"dependencies/{name}", value))
    for key in _SCHEMA_LISTS:
        found.extend((f"{key}/{i}", value) for i, value in enumerate(schema.get(key, [])))
    items = schema.get("items")
    if isinstance(items, list):
        found.extend((f"items/{i}", value) for i, value in enumerate(items))
    elif "items" in schema:
        found.append(("items", items))
    found.extend((key, schema[key]) for key in _SCHEMA_ONE if key in schema)
    return found


def _valid_type(kind: Any) -> bool:
    if isinstance(kind, str):
        return kind in TYPES
    return (
        isinstance(kind, list)
        and all(isinstance(item, str) and item in TYPES for item in kind)
        and len(set(kind)) == len(kind)
    )


def _number(value: Any) -> float | None:
    """The number Ajv's coercion reads (a bool, a numeric string and null coerce too)."""
    if value is None or isinstance(value, bool):
        return float(bool(value))
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _count(value: Any) -> bool:
    number = _number(value)
    return number is not None and number >= 0 and number == int(number)
