"""A JSON Schema document of an API kept in tests/schemas/, checked one `$defs` entry at a time
(each validator built once), with failures that name the JSON path and the closest branch."""

from __future__ import annotations

import json
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match

MAX_ERRORS = 5  # reported per failure


def _describe(error: ValidationError) -> str:
    # best_match descends into oneOf/anyOf/if-then to the branch that came closest.
    leaf = best_match([error]) or error
    return f"{leaf.json_path}: {leaf.message[:300]}"


class SchemaDefs:
    def __init__(self, path: Path, format_checker: FormatChecker | None = None) -> None:
        self.path = path
        self.format_checker = format_checker
        self.validator = cache(self._validator)

    @cached_property
    def schema(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        return loaded

    def _validator(self, definition: str) -> Draft202012Validator:
        if definition not in self.schema["$defs"]:
            raise KeyError(definition)
        root = {"$defs": self.schema["$defs"], "$ref": f"#/$defs/{definition}"}
        return Draft202012Validator(root, format_checker=self.format_checker)

    def check(self, instance: Any, definition: str, label: str) -> None:
        """`instance` against `#/$defs/<definition>`; an AssertionError naming `label`."""
        validator = self.validator(definition)
        errors = sorted(validator.iter_errors(instance), key=lambda e: e.json_path)
        if errors:
            lines = [_describe(error) for error in errors[:MAX_ERRORS]]
            raise AssertionError(f"{label} is not a valid {definition}:\n  " + "\n  ".join(lines))
