"""Tool schemas CAPI refuses with a blank 400, per model family.

Copilot's own chat repairs these before sending (src/extension/tools/common/
toolSchemaNormalizer.ts says why: CAPI answers them with a blank 400); requests through
vscode.lm are sent as they are, so here each one is a refusal. The rules and the schema
nodes they look at (`schema_nodes`) follow that file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from headless_editor.chat_types import ChatTool
from headless_editor.copilot.draft7 import draft7_problem

TOP_LEVEL_REFUSED = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")
GPT4_DESCRIPTION_CHARS = 1024
GPT4_REFUSED_KEYWORDS = frozenset(
    {
        "minLength", "maxLength", "pattern", "default", "format", "minimum", "maximum",
        "multipleOf", "patternProperties", "unevaluatedProperties", "propertyNames",
        "minProperties", "maxProperties", "unevaluatedItems", "contains", "minContains",
        "maxContains", "minItems", "maxItems", "uniqueItems",
    }
)  # fmt: skip
_NULLABLE_ANY = re.compile("gemini", re.IGNORECASE)


def is_gpt4ish(family: str) -> bool:
    return family.startswith("gpt-4")


def is_draft_2020_12(family: str) -> bool:
    return family.startswith(("gpt-4", "claude-", "o4"))


def is_gemini(family: str) -> bool:
    return _NULLABLE_ANY.search(family) is not None


def tool_refusal(tool: ChatTool, family: str) -> str | None:
    """Why CAPI refuses this tool for a model of `family` (None when it takes it)."""
    if not tool.description:
        return "tool description may not be empty"
    schema = tool.inputSchema
    if not schema:  # Copilot sends a tool with an empty schema without `parameters`
        return None
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        return "parameters must be an object schema with properties"
    problem = draft7_problem(schema)
    if problem is not None:
        return f"parameters are not a valid JSON Schema (draft 7): {problem}"
    for key in TOP_LEVEL_REFUSED:
        if key in schema:
            return f"parameters have the top-level keyword '{key}'"
    for node in schema_nodes(schema):
        found = _node_refusal(node, family)
        if found is not None:
            return found
    return None


def _node_refusal(node: dict[str, Any], family: str) -> str | None:
    kind = node.get("type")
    if kind == "array" and not node.get("items"):
        return "an array schema has no items"
    required = node.get("required")
    properties = node.get("properties")
    if kind == "object" and isinstance(properties, dict) and isinstance(required, list):
        missing = [key for key in required if key not in properties]
        if missing:
            return f"required property '{missing[0]}' is not defined"
    if is_gpt4ish(family):
        description = node.get("description")
        if isinstance(description, str) and len(description) > GPT4_DESCRIPTION_CHARS:
            return f"a description is over {GPT4_DESCRIPTION_CHARS} characters"
        refused = sorted(GPT4_REFUSED_KEYWORDS.intersection(node))
        if refused:
            return f"the keyword '{refused[0]}' is not supported"
    if is_draft_2020_12(family) and kind == "array" and isinstance(node.get("items"), list):
        return "items given as an array (not draft 2020-12)"
    if is_gemini(family) and isinstance(kind, list) and "null" in kind:
        return f"type {kind} holds null (Gemini needs `nullable`)"
    return None


_CHILD_MAPS = ("properties", "dependencies", "patternProperties")
_CHILD_LISTS = ("anyOf", "allOf", "oneOf")
_CHILD_ONE = ("additionalProperties", "not", "if", "then", "else", "contains")


def schema_nodes(schema: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every schema node the normaliser visits (not `$defs`), the root first."""
    if not isinstance(schema, dict) or depth > 64:
        return
    yield schema
    children: list[Any] = []
    for key in _CHILD_MAPS:
        value = schema.get(key)
        if isinstance(value, dict):
            children.extend(value.values())
    items = schema.get("items")
    children.extend(items if isinstance(items, list) else [items])
    for key in _CHILD_LISTS:
        value = schema.get(key)
        if isinstance(value, list):
            children.extend(value)
    children.extend(schema.get(key) for key in _CHILD_ONE)
    for child in children:
        yield from schema_nodes(child, depth + 1)
