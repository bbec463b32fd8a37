"""Google's OpenAPI-style Schema -> JSON Schema, and upper-case types in a JSON Schema."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bridge.core.errors import ApiError
from bridge.gemini.schema import MAX_DEPTH, json_schema_with_lower_types, openapi_to_json_schema


def convert(schema: Any) -> dict[str, Any]:
    return openapi_to_json_schema(schema, "tools[0].functionDeclarations[0].parameters")


def test_types_are_lower_cased_and_nested_schemas_converted() -> None:
    got = convert(
        {
            "type": "OBJECT",
            "properties": {
                "path": {"type": "STRING", "description": "where"},
                "lines": {"type": "ARRAY", "items": {"type": "INTEGER"}, "minItems": 1},
                "flag": {"type": "boolean"},
            },
            "required": ["path"],
            "propertyOrdering": ["path", "lines", "flag"],
        }
    )
    assert got == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "where"},
            "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            "flag": {"type": "boolean"},
        },
        "required": ["path"],
    }
    Draft202012Validator.check_schema(got)


def test_nullable_adds_the_null_type_and_null_to_an_enum() -> None:
    got = convert({"type": "STRING", "nullable": True, "enum": ["a", "b"], "format": "enum"})
    assert got == {"type": ["string", "null"], "enum": ["a", "b", None], "format": "enum"}
    validator = Draft202012Validator(got)
    assert validator.is_valid(None) and validator.is_valid("a") and not validator.is_valid("c")
    assert convert({"nullable": False, "type": "NUMBER"}) == {"type": "number"}


def test_nullable_any_of_gets_a_null_branch() -> None:
    got = convert({"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}], "nullable": True})
    assert got == {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}


def test_snake_case_keys_example_defs_and_ref() -> None:
    got = convert(
        {
            "type": "OBJECT",
            "min_properties": 1,
            "example": {"a": 1},
            "defs": {"Item": {"type": "STRING", "max_length": 3}},
            "properties": {"a": {"ref": "#/$defs/Item"}, "b": {"any_of": [{"type": "NULL"}]}},
        }
    )
    assert got == {
        "type": "object",
        "minProperties": 1,
        "examples": [{"a": 1}],
        "$defs": {"Item": {"type": "string", "maxLength": 3}},
        "properties": {"a": {"$ref": "#/$defs/Item"}, "b": {"anyOf": [{"type": "null"}]}},
    }
    assert Draft202012Validator(got).is_valid({"a": "abc", "b": None})


def test_property_names_are_never_renamed() -> None:
    got = convert({"type": "OBJECT", "properties": {"file_path": {"type": "STRING"}}})
    assert got["properties"] == {"file_path": {"type": "string"}}


def test_type_unspecified_means_no_type() -> None:
    assert convert({"type": "TYPE_UNSPECIFIED", "description": "x"}) == {"description": "x"}


@pytest.mark.parametrize(
    ("schema", "param"),
    [
        ({"type": "STRUCT"}, "p.type"),
        ({"type": "OBJECT", "properties": {"a": {"type": 3}}}, "p.properties.a.type"),
        ({"type": "ARRAY", "items": {"type": "LIST"}}, "p.items.type"),
        ({"anyOf": [{"type": "STRING"}, {"type": "X"}]}, "p.anyOf[1].type"),
        ("OBJECT", "p"),
    ],
)
def test_bad_schemas_name_the_field(schema: Any, param: str) -> None:
    with pytest.raises(ApiError) as caught:
        openapi_to_json_schema(schema, "p")
    assert caught.value.status == 400 and caught.value.param == param


def test_a_deep_schema_is_a_400_not_a_recursion_error() -> None:
    schema: dict[str, Any] = {"type": "STRING"}
    for _ in range(MAX_DEPTH + 5):
        schema = {"type": "ARRAY", "items": schema}
    with pytest.raises(ApiError) as caught:
        openapi_to_json_schema(schema, "p")
    assert caught.value.status == 400


def test_a_json_schema_keeps_everything_but_gets_lower_case_types() -> None:
    """Gemini CLI's router sends `responseJsonSchema` with Google's upper-case types."""
    router = {
        "type": "OBJECT",
        "properties": {
            "reasoning": {"type": "STRING", "description": "why"},
            "model_choice": {"type": "STRING", "enum": ["flash", "pro"]},
        },
        "required": ["reasoning", "model_choice"],
    }
    got = json_schema_with_lower_types(router, "generationConfig.responseJsonSchema")
    assert got == {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "why"},
            "model_choice": {"type": "string", "enum": ["flash", "pro"]},
        },
        "required": ["reasoning", "model_choice"],
    }
    Draft202012Validator.check_schema(got)


def test_a_plain_json_schema_is_unchanged() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": ["string", "null"], "nullable": True, "example": 1}},
        "additionalProperties": False,
        "$defs": {"A": {"type": "integer"}},
    }
    assert json_schema_with_lower_types(schema, "p") == schema
    assert json_schema_with_lower_types(True, "p") is True
