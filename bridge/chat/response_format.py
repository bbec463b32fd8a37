"""Chat Completions `response_format` -> the core's `OutputFormat`.

`text` (or none) is free text; `json_object` asks for one JSON object; `json_schema` asks for
JSON valid against `json_schema.schema`. The editor has no constrained decoding: the format goes
to the model as an option and an instruction, and the answer is checked afterwards, as for
Responses' structured output (bridge/core/structured_output.py).
"""

from __future__ import annotations

from typing import Any

from bridge.core.errors import invalid_request
from bridge.core.structured_output import OutputFormat

PARAM = "response_format"
SCHEMA_PARAM = "response_format.json_schema.schema"


def requested_format(fmt: dict[str, Any] | None) -> OutputFormat | None:
    """The JSON format the client asked for, or None for free text; 400 when it is unusable."""
    if fmt is None:
        return None
    kind = fmt.get("type")
    if kind == "text":
        return None
    if kind == "json_object":
        return OutputFormat("json_object")
    if kind != "json_schema":
        raise invalid_request(
            f"Invalid `{PARAM}.type` {kind!r}: expected `text`, `json_object` or `json_schema`.",
            param=f"{PARAM}.type",
            code="invalid_value",
        )
    spec = fmt.get("json_schema")
    if not isinstance(spec, dict):
        raise invalid_request(
            f"`{PARAM}` of type json_schema needs a `json_schema` object.",
            param=f"{PARAM}.json_schema",
            code="missing_required_parameter",
        )
    schema = spec.get("schema")
    if schema is None:
        return OutputFormat("json_object")  # the schema is optional: then any JSON object
    if not isinstance(schema, dict):
        raise invalid_request(
            f"`{SCHEMA_PARAM}` must be a JSON Schema object.",
            param=SCHEMA_PARAM,
            code="invalid_value",
        )
    name = spec.get("name")
    return OutputFormat(
        "json_schema",
        name=name if isinstance(name, str) and name else "response",
        schema=schema,
        strict=spec.get("strict") is True,
        param=SCHEMA_PARAM,
    )
