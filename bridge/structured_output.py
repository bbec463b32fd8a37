"""Structured output (`text.format` json_schema / json_object) through an editor without it.

The editor's API has no constrained decoding, so the bridge does what it can:
- the format goes to the model twice: as the model option `responseFormat` (in OpenAI's chat
  shape, for providers that pass options through) and as an instruction message, which every
  model reads;
- the final text is checked (JSON, an object, valid against the schema); a mismatch is logged
  and the answer is still returned as the model wrote it. Clients that parse (the SDKs'
  `responses.parse`) then see the problem themselves, as they would with a refusal.

Schemas are checked with `jsonschema`, the reference implementation: SDK-made schemas use
`$defs`/`$ref`, `anyOf` and `additionalProperties`, which a hand-written subset would get wrong.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import jsonschema
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

from bridge.errors import invalid_request

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OutputFormat:
    kind: str  # "json_schema" or "json_object"
    name: str = "response"
    schema: dict[str, Any] | None = None
    strict: bool = False

    def model_option(self) -> dict[str, Any]:
        """`response_format` as OpenAI's chat API spells it: what providers would understand."""
        if self.kind == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "schema": self.schema, "strict": self.strict},
        }

    def instruction(self) -> str:
        if self.kind == "json_object":
            return (
                "Answer with one JSON object and nothing else: no prose, no Markdown code fences."
            )
        schema = json.dumps(self.schema, ensure_ascii=False, separators=(",", ":"))
        return (
            "Answer with one JSON value and nothing else (no prose, no Markdown code fences) "
            f"that is valid against this JSON Schema, named {self.name!r}:\n{schema}"
        )


def output_format(text: dict[str, Any] | None) -> OutputFormat | None:
    """The requested structured format, or None for plain text; 400 when it is unusable."""
    fmt = (text or {}).get("format")
    if not isinstance(fmt, dict) or fmt.get("type") in (None, "text"):
        return None
    kind = fmt.get("type")
    if kind == "json_object":
        return OutputFormat("json_object")
    if kind != "json_schema":
        raise invalid_request(
            f"Unsupported `text.format.type` {kind!r}: use text, json_schema or json_object.",
            param="text.format.type",
            code="invalid_value",
        )
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise invalid_request(
            "`text.format` of type json_schema needs a `schema` object.",
            param="text.format.schema",
            code="missing_required_parameter",
        )
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise invalid_request(
            f"`text.format.schema` is not a valid JSON Schema: {exc.message}.",
            param="text.format.schema",
            code="invalid_value",
        ) from None
    name = fmt.get("name")
    return OutputFormat(
        "json_schema",
        name=name if isinstance(name, str) and name else "response",
        schema=schema,
        strict=fmt.get("strict") is True,
    )


def problem(fmt: OutputFormat, text: str) -> str | None:
    """Why `text` does not meet the format, or None when it does."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"the answer is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if fmt.kind == "json_object":
        return None if isinstance(value, dict) else "the answer is JSON but not an object"
    assert fmt.schema is not None
    error = jsonschema.exceptions.best_match(
        validator_for(fmt.schema)(fmt.schema).iter_errors(value)
    )
    if error is None:
        return None
    where = "/".join(str(step) for step in error.absolute_path) or "(the top level)"
    # The keyword and place only: the message itself quotes the model's output.
    return f"the answer does not match the schema: `{error.validator}` fails at {where}"


def check_answer(fmt: OutputFormat, text: str) -> bool:
    """Log when the final answer breaks the format; True when it meets it."""
    found = problem(fmt, text)
    if found is None:
        return True
    log.warning("Structured output %r: %s; the answer is returned as is", fmt.name, found)
    log.debug("The answer that broke the format: %s", text)
    return False
