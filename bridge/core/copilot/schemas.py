"""Tool input schemas as Copilot's upstream takes them, per model family.

Copilot's own chat fixes these forms before it sends a tool (toolSchemaNormalizer.ts in
microsoft/vscode-copilot-chat); requests from other extensions through `vscode.lm` skip that
step, and its upstream answers a blank 400. So the bridge applies the same rules:
- every family: an object schema with `properties`; `required` only naming defined properties;
  an `array` with `items`; no top-level `oneOf`/`anyOf`/`allOf`/`not`/`if`/`then`/`else`;
  no `$schema` (the upstream checks against draft 7);
- GPT-4 family: descriptions at most 1,024 characters; none of the keywords it refuses
  (`pattern`, `minLength`, `format`, `default`...);
- GPT-4, `claude-` and `o4` families (draft 2020-12): `items` given as a list becomes
  `{"anyOf": [...]}`;
- Gemini family: a type list with `null` becomes the type plus `nullable: true`.
What a rule removes is added to the tool's description ("Input constraints: ..."), so the model
still reads it. The schema is rebuilt, never changed in place: the client's own stays as it was.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

GPT4_MAX_DESCRIPTION = 1024
GPT4_REFUSED = frozenset(
    {
        "minLength", "maxLength", "pattern", "default", "format", "minimum", "maximum",
        "multipleOf", "patternProperties", "unevaluatedProperties", "propertyNames",
        "minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains",
        "maxContains", "minItems", "maxItems", "uniqueItems",
    }
)  # fmt: skip
TOP_LEVEL_REFUSED = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")
NO_DESCRIPTION = "No description provided."
_NOTE_VALUE_CHARS = 200  # of one removed value, quoted in the description
_MAX_DEPTH = 64  # deeper nodes are left as they are (no recursion without bound)
# Keys whose value maps names to schemas, and keys whose value is a schema or a list of them.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependencies")
_SCHEMA_KEYS = ("items", "additionalProperties", "contains", "not", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")


@dataclass(frozen=True)
class Family:
    """What the model family refuses (from its `family`, as Copilot reads it)."""

    gpt4: bool
    draft_2020_12: bool
    gemini: bool

    @classmethod
    def of(cls, family: str) -> Family:
        return cls(
            gpt4=family.startswith("gpt-4"),
            draft_2020_12=family.startswith(("gpt-4", "claude-", "o4")),
            gemini="gemini" in family.lower(),
        )


@dataclass
class _Notes:
    lines: list[str] = field(default_factory=list)

    def removed(self, where: str, key: str, value: Any) -> None:
        shown = json.dumps(value, ensure_ascii=False)
        if len(shown) > _NOTE_VALUE_CHARS:
            shown = shown[:_NOTE_VALUE_CHARS] + "..."
        self.lines.append(f"{where or 'the input'}: {key} {shown}")


def normalised_tool(
    description: str, schema: dict[str, Any] | None, family: Family
) -> tuple[str, dict[str, Any] | None]:
    """(description, schema) for Copilot: the schema fixed for `family`, the description
    saying what was removed. An empty or absent schema stays absent (sent without one)."""
    text = description if description.strip() else NO_DESCRIPTION
    if not schema:
        return text, None
    notes = _Notes()
    root = dict(schema)
    root.pop("$schema", None)
    if root.get("type") != "object":
        if "type" in root:  # not an object: nothing of it can be kept
            notes.removed("", "schema", schema)
            root = {}
        root["type"] = "object"
    for key in TOP_LEVEL_REFUSED:
        if key in root:
            notes.removed("", key, root.pop(key))
    if not isinstance(root.get("properties"), dict):
        root["properties"] = {}
    fixed = _node(root, "", family, notes, 0)
    if notes.lines:
        text += "\n\nInput constraints the schema cannot carry: " + "; ".join(notes.lines) + "."
    return text, fixed


def _node(node: dict[str, Any], where: str, family: Family, notes: _Notes, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if family.gpt4 and key in GPT4_REFUSED:
            notes.removed(where, key, value)
            continue
        if key == "description" and family.gpt4 and isinstance(value, str):
            out[key] = value[:GPT4_MAX_DESCRIPTION]
        elif key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {
                name: _child(sub, _path(where, name), family, notes, depth)
                for name, sub in value.items()
            }
        elif key in _SCHEMA_KEYS:
            out[key] = (
                [_child(sub, where, family, notes, depth) for sub in value]
                if isinstance(value, list)
                else _child(value, where, family, notes, depth)
            )
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_child(sub, where, family, notes, depth) for sub in value]
        else:
            out[key] = value
    _fix_node(out, family)
    return out


def _child(value: Any, where: str, family: Family, notes: _Notes, depth: int) -> Any:
    return _node(value, where, family, notes, depth + 1) if isinstance(value, dict) else value


def _path(where: str, name: str) -> str:
    return f"{where}.{name}" if where else f"`{name}`"


def _fix_node(node: dict[str, Any], family: Family) -> None:
    """The rules about one node's own shape (its children are fixed already)."""
    kind = node.get("type")
    if kind == "array" or (isinstance(kind, list) and "array" in kind):
        items = node.get("items")
        if items is None:
            node["items"] = {}
        elif isinstance(items, list) and family.draft_2020_12:
            node["items"] = {"anyOf": items}
    required = node.get("required")
    properties = node.get("properties")
    if isinstance(required, list) and isinstance(properties, dict):
        kept = [name for name in required if isinstance(name, str) and name in properties]
        if len(kept) != len(required):
            node["required"] = kept
    if family.gemini and isinstance(kind, list) and "null" in kind:
        others = [t for t in kind if t != "null"]
        if len(others) == 1:
            node["type"] = others[0]
            node["nullable"] = True
        elif others:
            node["type"] = others
