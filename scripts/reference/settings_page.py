"""docs/reference/settings.md: every VS Code setting, from editor-client/package.json."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from scripts.reference.markdown import NOTICE, code, table

# The groups of settings, by the word after `maestroBridge.` (others: General).
GROUPS = {
    "limits": "Limits",
    "budgets": "Budgets",
    "usage": "The usage ledger",
    "tools": "Editor tools",
}


def render(root: Path) -> str:
    manifest = json.loads((root / "editor-client/package.json").read_text(encoding="utf-8"))
    properties: dict[str, Any] = manifest["contributes"]["configuration"]["properties"]
    grouped: dict[str, list[list[str]]] = {"General": []}
    grouped.update({title: [] for title in GROUPS.values()})
    for name, schema in properties.items():
        parts = name.split(".")
        group = GROUPS.get(parts[1], "General") if len(parts) > 2 else "General"
        grouped[group].append([f"`{name}`", _type(schema), _default(schema), _meaning(schema)])
    lines = [
        NOTICE,
        "",
        "# VS Code settings",
        "",
        "Every setting of the Maestro Bridge extension (`editor-client/package.json`), as "
        "VS Code's Settings editor shows it. Changing any of them restarts the bridge. The "
        "extension sends the language server only the settings you set, as initialization options "
        "([the editor protocol](../protocol.md)); every other one keeps the server's default, "
        "the value shown here.",
    ]
    for title, rows in grouped.items():
        if rows:
            lines += ["", f"## {title}", ""]
            lines += table(["setting", "type", "default", "meaning"], rows)
    return "\n".join(lines) + "\n"


def _type(schema: dict[str, Any]) -> str:
    kinds = schema.get("type", "")
    text = " or ".join(kinds) if isinstance(kinds, list) else str(kinds)
    if "enum" in schema:
        text += ": " + ", ".join(code(value) for value in schema["enum"])
    bounds = []
    if "minimum" in schema:
        bounds.append(f"at least {schema['minimum']}")
    if "exclusiveMinimum" in schema:
        bounds.append(f"above {schema['exclusiveMinimum']}")
    if "maximum" in schema:
        bounds.append(f"at most {schema['maximum']}")
    if bounds:
        text += " (" + ", ".join(bounds) + ")"
    return text


def _default(schema: dict[str, Any]) -> str:
    if "default" not in schema or schema["default"] is None:
        return "none"
    return code(schema["default"])


def _meaning(schema: dict[str, Any]) -> str:
    text = str(schema.get("markdownDescription") or schema.get("description") or "")
    # `#maestroBridge.apiKey#` is a link in VS Code's Settings editor; here, the setting's name.
    return re.sub(r"#(maestroBridge\.[\w.]+)#", r"`\1`", text)
