"""OpenAI's `"encrypted": true` markers in parameter schemas, which the editor never sees.

Codex's collaboration tools ask OpenAI to encrypt those arguments; the markers are OpenAI's
extension, not JSON Schema (moved here from tools.py, which had grown past its size).
"""

from __future__ import annotations

from typing import Any

# Keys whose value maps names to schemas (the names are not schema keywords).
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# Keys whose value is data, not a schema: kept as they are.
_SCHEMA_DATA = ("enum", "const", "default", "examples", "required")


def without_encrypted_markers(schema: Any) -> Any:
    """The schema without OpenAI's `"encrypted": true` markers (a copy; the input is kept)."""
    if isinstance(schema, list):
        return [without_encrypted_markers(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    clean: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "encrypted" and isinstance(value, bool):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            clean[key] = {name: without_encrypted_markers(sub) for name, sub in value.items()}
        elif key in _SCHEMA_DATA:
            clean[key] = value
        else:
            clean[key] = without_encrypted_markers(value)
    return clean
