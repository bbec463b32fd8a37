"""Google's OpenAPI-style `Schema` -> JSON Schema, which the editor's tools and checks take.

Google's Schema spells types in upper case (`STRING`, `OBJECT`), marks an optional null with
`nullable`, and carries keys JSON Schema has not (`propertyOrdering`, a single `example`). So:
types are lower-cased (`TYPE_UNSPECIFIED` means none), `nullable: true` adds the `null` type
(and `null` to an `enum`), `example` becomes `examples: [example]`, `propertyOrdering` is
dropped (JSON Schema objects have no order), `defs`/`ref` become `$defs`/`$ref`, snake_case keys
become camelCase, and the rest (`enum`, `format`, `minItems`...) is kept. A JSON Schema
(`parametersJsonSchema`, `responseJsonSchema`) is kept as it is, but for upper-case types,
which Gemini CLI's router sends in it too.
"""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_camel

from bridge.gemini.fields import bad_field

TYPES = ("string", "number", "integer", "boolean", "array", "object", "null")
UNSPECIFIED = "type_unspecified"
MAX_DEPTH = 64  # nesting of subschemas; deeper is a 400, not a RecursionError
RENAMED = {"defs": "$defs", "ref": "$ref", "example": "examples"}
DROPPED = ("nullable", "propertyOrdering")
# Keys whose value is one subschema, a map of them, or a list of them (JSON Schema 2020-12).
ONE = (
    "items",
    "not",
    "additionalProperties",
    "additionalItems",
    "contains",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _type(value: Any, param: str) -> str | list[str] | None:
    if isinstance(value, list):
        names = [_type(item, f"{param}[{index}]") for index, item in enumerate(value)]
        return [name for name in names if isinstance(name, str)]
    if not isinstance(value, str) or value.lower() not in (*TYPES, UNSPECIFIED):
        raise bad_field(
            param,
            f"Invalid value for `{param}`: expected one of {', '.join(t.upper() for t in TYPES)}.",
        )
    return None if value.lower() == UNSPECIFIED else value.lower()


def _nullable(schema: dict[str, Any]) -> None:
    """`nullable: true` as JSON Schema says it: `null` among the types (and the enum)."""
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "null":
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    elif kind is None and "anyOf" in schema:
        schema["anyOf"] = [*schema["anyOf"], {"type": "null"}]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]


def _subschemas(key: str, value: Any, param: str, depth: int, openapi: bool) -> Any:
    """The value of `key` with each subschema in it converted."""
    where = f"{param}.{key}"
    if key in ONE and isinstance(value, dict):
        return _convert(value, where, depth + 1, openapi)
    if key == "items" and isinstance(value, list):  # older JSON Schema's tuple form
        return [_convert(v, f"{where}[{i}]", depth + 1, openapi) for i, v in enumerate(value)]
    if key in MAPS and isinstance(value, dict):
        return {
            name: _convert(sub, f"{where}.{name}", depth + 1, openapi)
            if isinstance(sub, dict)
            else sub
            for name, sub in value.items()
        }
    if key in LISTS and isinstance(value, list):
        return [
            _convert(sub, f"{where}[{i}]", depth + 1, openapi) if isinstance(sub, dict) else sub
            for i, sub in enumerate(value)
        ]
    return value


def _convert(schema: dict[str, Any], param: str, depth: int, openapi: bool) -> dict[str, Any]:
    if depth > MAX_DEPTH:
        raise bad_field(param, f"`{param}` nests deeper than {MAX_DEPTH} schemas.")
    out: dict[str, Any] = {}
    for raw_key, value in schema.items():
        key = str(raw_key)
        if openapi:
            key = RENAMED.get(key, key if key.startswith("$") else to_camel(key))
        if key in DROPPED and (openapi or key == "propertyOrdering"):
            continue  # Google's own keys: no JSON Schema keyword (a strict provider rejects them)
        if openapi:
            value = [value] if raw_key == "example" else value
        if key == "type":
            kind = _type(value, f"{param}.type") if openapi or _upper(value) else value
            if kind is not None and kind != []:
                out["type"] = kind
            continue
        out[key] = _subschemas(key, value, param, depth, openapi)
    if openapi and schema.get("nullable") is True:
        _nullable(out)
    return out


def _upper(value: Any) -> bool:
    """A JSON Schema `type` written in upper case (`OBJECT`, or a list holding one)."""
    values = value if isinstance(value, list) else [value]
    return any(isinstance(v, str) and v != v.lower() for v in values)


def openapi_to_json_schema(schema: Any, param: str) -> dict[str, Any]:
    """Google's `Schema` at `param` as a JSON Schema; 400 naming the field when it is wrong."""
    if not isinstance(schema, dict):
        raise bad_field(param, f"`{param}` must be a schema object.")
    return _convert(schema, param, 0, openapi=True)


def json_schema_with_lower_types(schema: Any, param: str) -> Any:
    """A JSON Schema with its upper-case types lower-cased (anything else kept as it is)."""
    if not isinstance(schema, dict):
        return schema  # `true`/`false` are schemas too; the format check judges the rest
    return _convert(schema, param, 0, openapi=False)
