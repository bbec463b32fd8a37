"""Tool inputs the simulated model makes up: the least value a JSON Schema accepts."""

from __future__ import annotations

import math
from typing import Any

_MAX_SCHEMA_DEPTH = 32  # guards against recursive $refs


def placeholder_input(schema: dict[str, Any] | None) -> dict[str, Any]:
    """An inert input that validates against `schema`: required properties only."""
    root = schema or {}
    value = _placeholder(root, root, 0)
    return value if isinstance(value, dict) else {}


def _placeholder(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > _MAX_SCHEMA_DEPTH:
        return None
    deeper = depth + 1
    if isinstance(schema.get("$ref"), str):
        return _placeholder(_resolve(root, schema["$ref"]), root, deeper)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return _placeholder(schema[key][0], root, deeper)
    if schema.get("allOf"):
        return _placeholder(_merge_all_of(schema, root), root, deeper)
    kind = _type_of(schema)
    if kind == "object":
        properties = schema.get("properties") or {}
        return {
            name: _placeholder(properties.get(name, {}), root, deeper)
            for name in schema.get("required", [])
        }
    if kind == "array":
        return _array(schema, root, deeper)
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return False
    return None  # "null", or a schema that accepts anything


def _type_of(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        # ["string", "null"] is an optional string: a string is the more useful placeholder.
        kind = next((k for k in kind if k != "null"), "null" if kind else None)
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return None


def _resolve(root: dict[str, Any], ref: str) -> Any:
    """A local reference such as `#/$defs/Point` or `#/definitions/Point`; {} if unknown."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for token in filter(None, ref[1:].split("/")):
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return {}
    return node


def _merge_all_of(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    merged = {key: value for key, value in schema.items() if key != "allOf"}
    for sub in schema["allOf"]:
        if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
            sub = _resolve(root, sub["$ref"])
        if not isinstance(sub, dict):
            continue
        for key, value in sub.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def _array(schema: dict[str, Any], root: dict[str, Any], depth: int) -> list[Any]:
    items = schema.get("items")
    positional = schema.get("prefixItems") or (items if isinstance(items, list) else [])
    rest = items if isinstance(items, dict) else {}
    count = schema.get("minItems", 0)
    return [
        _placeholder(positional[i] if i < len(positional) else rest, root, depth)
        for i in range(count if isinstance(count, int) else 0)
    ]


def _string(schema: dict[str, Any]) -> str:
    value = "placeholder"
    longest = schema.get("maxLength")
    if isinstance(longest, int):
        value = value[:longest]
    shortest = schema.get("minLength")
    if isinstance(shortest, int):
        value = value.ljust(shortest, "x")
    return value


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    value: float = 0
    if (low := _bound(schema, "minimum")) is not None and value < low:
        value = low
    if (low := _bound(schema, "exclusiveMinimum")) is not None and value <= low:
        value = low + 1
    if (high := _bound(schema, "maximum")) is not None and value > high:
        value = high
    if (high := _bound(schema, "exclusiveMaximum")) is not None and value >= high:
        value = high - 1
    return math.ceil(value) if integer else value


def _bound(schema: dict[str, Any], key: str) -> float | None:
    value = schema.get(key)
    # Draft 4 spells exclusiveMinimum as a boolean; that flag is not a bound.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None


def placeholder_value(schema: dict[str, Any]) -> Any:
    """The least value valid for `schema` (any type: a structured answer's JSON)."""
    return _placeholder(schema, schema, 0)
