"""Anthropic's structured outputs (`output_config.format`) -> the core's `OutputFormat`.

Anthropic asks for JSON with `{"type": "json_schema", "schema": {...}}` in
`output_config.format` (the older beta put the same object in a top-level `output_format`).
The editor has no constrained decoding: the format goes to the model as an instruction, as in
the Responses dialect (bridge/core/structured_output.py).
"""

from __future__ import annotations

from typing import Any

from bridge.anthropic.wire import MessagesBody
from bridge.core.errors import invalid_request
from bridge.core.structured_output import OutputFormat


def _requested(request: MessagesBody) -> tuple[Any, str]:
    """The format object and its param, from `output_config.format` or `output_format`."""
    config = request.output_config
    if config is not None and config.format is not None:
        return config.format, "output_config.format"
    return request.output_format, "output_format"


def requested_format(request: MessagesBody) -> OutputFormat | None:
    """The JSON format the client asked for, or None for free text; 400 when it is unusable."""
    fmt, param = _requested(request)
    if fmt is None:
        return None
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        raise invalid_request(
            f"`{param}` must be an object with `type` `json_schema` and a `schema`.",
            param=f"{param}.type" if isinstance(fmt, dict) else param,
            code="invalid_value",
        )
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise invalid_request(
            f"`{param}` of type json_schema needs a `schema` object.",
            param=f"{param}.schema",
            code="missing_required_parameter",
        )
    # Anthropic's outputs always follow the schema: ask providers for the strict kind.
    return OutputFormat(
        "json_schema", name="response", schema=schema, strict=True, param=f"{param}.schema"
    )
