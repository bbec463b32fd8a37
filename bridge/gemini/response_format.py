"""`responseMimeType` + `responseSchema` / `responseJsonSchema` -> what the answer must be.

`application/json` asks for JSON: valid against `responseSchema` (Google's Schema, converted by
schema.py) or `responseJsonSchema` (a JSON Schema; Gemini CLI's router writes its types in upper
case, so those are lower-cased), or any JSON object without either. The editor has no
constrained decoding: the format goes to the model as an option and an instruction, and the
answer is checked afterwards (bridge/core/structured_output.py). `text/x.enum` asks for one of
an enum's values as plain text: a simple enum schema becomes an instruction naming the values;
anything else is a 400. `text/plain` (or none) is free text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.core.structured_output import OutputFormat
from bridge.gemini.fields import bad_field
from bridge.gemini.schema import json_schema_with_lower_types, openapi_to_json_schema
from bridge.gemini.wire import GenerationConfig

CONFIG = "generationConfig"
MIME = f"{CONFIG}.responseMimeType"
MIME_TYPES = ("text/plain", "application/json", "text/x.enum")


@dataclass(frozen=True)
class RequestedFormat:
    output: OutputFormat | None = None  # JSON, checked afterwards
    enum_values: tuple[str, ...] = ()  # `text/x.enum`: answer with one of these


def enum_instruction(values: tuple[str, ...]) -> str:
    listed = "\n".join(values)
    return (
        "Answer with exactly one of these values, as plain text, and nothing else "
        f"(no quotes, no punctuation, no explanation):\n{listed}"
    )


def _schema(config: GenerationConfig) -> tuple[dict[str, Any] | None, str]:
    """The requested schema as JSON Schema, and the field that gave it."""
    if config.response_schema is not None and config.response_json_schema is not None:
        raise bad_field(
            f"{CONFIG}.responseSchema",
            f"`{CONFIG}` may give `responseSchema` or `responseJsonSchema`, not both.",
        )
    if config.response_schema is not None:
        param = f"{CONFIG}.responseSchema"
        return openapi_to_json_schema(config.response_schema, param), param
    param = f"{CONFIG}.responseJsonSchema"
    if config.response_json_schema is None:
        return None, param
    schema = json_schema_with_lower_types(config.response_json_schema, param)
    if not isinstance(schema, dict):
        raise bad_field(param, f"`{param}` must be a JSON Schema object.")
    return schema, param


def _enum_values(schema: dict[str, Any] | None, param: str) -> tuple[str, ...]:
    values = (schema or {}).get("enum")
    simple = (
        isinstance(values, list)
        and values
        and all(isinstance(v, str) and v for v in values)
        and (schema or {}).get("type", "string") in ("string", ["string", "null"])
    )
    if not simple:
        raise bad_field(
            param,
            f"`{MIME}` text/x.enum needs `{param}` to be a string schema with an `enum` of "
            "non-empty strings.",
        )
    return tuple(dict.fromkeys(str(v) for v in (values or [])))


def requested_format(config: GenerationConfig | None) -> RequestedFormat:
    """What the client asked the answer to be; 400 naming the field when it is unusable."""
    if config is None:
        return RequestedFormat()
    mime = (config.response_mime_type or "").strip().lower()
    schema, param = _schema(config)
    if mime not in ("", *MIME_TYPES):
        raise bad_field(
            MIME,
            f"Invalid value for `{MIME}` {config.response_mime_type!r}: expected one of "
            f"{', '.join(MIME_TYPES)}.",
        )
    if mime == "text/x.enum":
        return RequestedFormat(enum_values=_enum_values(schema, param))
    if mime == "text/plain" and schema is not None:
        raise bad_field(
            MIME, f"A response schema needs `{MIME}` application/json (or text/x.enum)."
        )
    if mime == "text/plain" or (mime == "" and schema is None):
        return RequestedFormat()
    if schema is None:
        return RequestedFormat(OutputFormat("json_object", param=MIME))
    return RequestedFormat(OutputFormat("json_schema", schema=schema, param=param))
