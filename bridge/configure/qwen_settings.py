"""Our keys in Qwen Code's `settings.json`: where it is, and merging them in.

Qwen Code 0.24.4 keeps its user settings in `$QWEN_HOME/settings.json` (else
`~/.qwen/settings.json`). Its own "one-file setup" for an OpenAI-compatible server is what we
write; only these keys are ours:

    "modelProviders": {"openai": [{"id": "<model>", "name": "<model>",
                                   "baseUrl": "<bridge>/v1", "envKey": "MAESTRO_BRIDGE_API_KEY"},
                                  ... one per model the bridge lists]}
    "env": {"MAESTRO_BRIDGE_API_KEY": "<key>"}       (a variable of that name still wins)
    "security": {"auth": {"selectedType": "openai"}}
    "model": {"name": "<model>"}

Entries of `modelProviders.openai` with another `baseUrl` (the user's other servers) stay, in
front of ours. With `--tools`, the bridge's MCP server too, as Qwen Code's HTTP servers are
written (`httpUrl`):

    "mcpServers": {"maestro": {"httpUrl": "<bridge>/mcp",
                               "headers": {"Authorization": "Bearer <key>"}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.configure.config_file import (
    Change,
    ConfigError,
    json_object,
    json_text,
    object_at,
    set_value,
)
from bridge.configure.mcp_server import McpServer, merge_json_server
from bridge.user_home import user_home

KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
AUTH_TYPE = "openai"
NOT_JSON = ": fix it or move it away; nothing was written"
_OTHER_TRANSPORT_KEYS = ("url", "type", "command", "args", "env", "cwd", "tcp")


def qwen_dir(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """`$QWEN_HOME` (`~` expanded) when set, else `~/.qwen`."""
    value = environ.get("QWEN_HOME", "")
    if value:
        return Path(value).expanduser().absolute()
    return user_home(environ, platform) / ".qwen"


def merge(
    text: str,
    base_url: str,
    api_key: str,
    model: str,
    models: list[str],
    mcp: McpServer | None = None,
) -> tuple[str, list[Change]]:
    """`text` (a settings.json, possibly empty) with our keys; and what changed."""
    document = json_object(text, NOT_JSON)
    changes: list[Change] = []
    providers = object_at(document, ("modelProviders",))
    old = providers.get(AUTH_TYPE, [])
    if not isinstance(old, list):
        raise ConfigError("its `modelProviders.openai` is not a list: fix it by hand")
    theirs = [entry for entry in old if not _ours(entry, base_url)]
    ours = [{"id": name, "name": name, "baseUrl": base_url, "envKey": KEY_ENV} for name in models]
    if old != theirs + ours:
        providers[AUTH_TYPE] = theirs + ours
        before = [entry["id"] for entry in old if _ours(entry, base_url)]
        changes.append(Change("modelProviders.openai[bridge]", before, list(models)))
    set_value(object_at(document, ("env",)), KEY_ENV, api_key, f"env.{KEY_ENV}", changes)
    auth = object_at(document, ("security", "auth"))
    set_value(auth, "selectedType", AUTH_TYPE, "security.auth.selectedType", changes)
    set_value(object_at(document, ("model",)), "name", model, "model.name", changes)
    if mcp is not None:
        ours_mcp = {"httpUrl": mcp.url, "headers.Authorization": mcp.authorization}
        changes += merge_json_server(document, ours_mcp, _OTHER_TRANSPORT_KEYS)
    if not changes:
        return text, []
    return json_text(document), changes


def _ours(entry: Any, base_url: str) -> bool:
    return isinstance(entry, dict) and entry.get("baseUrl") == base_url
