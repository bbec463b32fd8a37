"""Our keys in OpenCode's global configuration file: where it is, and merging them in.

OpenCode 1.18.33 reads its global configuration from `$XDG_CONFIG_HOME/opencode` (else
`~/.config/opencode`, on every platform): `opencode.json`, or `opencode.jsonc`. We write the
`.jsonc` when it is the only one there (it must then be plain JSON: comments cannot be kept),
else `opencode.json`. Only these keys are ours:

    "provider": {"maestro": {"npm": "@ai-sdk/openai-compatible", "name": "Maestro Bridge",
                             "options": {"baseURL": "<bridge>/v1", "apiKey": "<key>"},
                             "models": {"<id>": {"name": "<id>"}, ...}}}
    "model": "maestro/<model>"

(`@ai-sdk/openai-compatible` is the AI SDK's Chat Completions client, which OpenCode bundles.)
With `--tools`, the bridge's MCP server too, as OpenCode's remote servers are written:

    "mcp": {"maestro": {"type": "remote", "url": "<bridge>/mcp", "enabled": true,
                        "headers": {"Authorization": "Bearer <key>"}}}

Everything else stays, in its order; keys the user added inside our entries stay too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.configure.config_file import Change, ConfigError, json_object, json_text, set_value
from bridge.configure.mcp_server import MCP_SERVER_NAME, McpServer
from bridge.user_home import user_home

PROVIDER_ID = "maestro"
PROVIDER_PACKAGE = "@ai-sdk/openai-compatible"
API_KEY_PATH = f"provider.{PROVIDER_ID}.options.apiKey"
MCP_AUTHORIZATION_PATH = f"mcp.{MCP_SERVER_NAME}.headers.Authorization"
NOT_JSON = ": OpenCode allows comments there, which this command cannot keep: remove them, or "
NOT_JSON += "add the provider by hand (docs/agents/opencode-qwen.md); nothing was written"


def opencode_dir(environ: Mapping[str, str], platform: str | None = None) -> Path:
    value = environ.get("XDG_CONFIG_HOME", "")
    base = Path(value) if value else user_home(environ, platform) / ".config"
    return base / "opencode"


def opencode_config_file(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """`opencode.json`, unless `opencode.jsonc` is there alone."""
    folder = opencode_dir(environ, platform)
    plain, commented = folder / "opencode.json", folder / "opencode.jsonc"
    if not plain.exists() and commented.exists():
        return commented
    return plain


def merge(
    text: str,
    base_url: str,
    api_key: str,
    model: str,
    models: list[str],
    mcp: McpServer | None = None,
) -> tuple[str, list[Change]]:
    """`text` (an opencode.json, possibly empty) with our keys; and what changed."""
    document = json_object(text, NOT_JSON)
    changes: list[Change] = []
    provider = _object(document, ("provider", PROVIDER_ID), changes)
    label = f"provider.{PROVIDER_ID}"
    set_value(provider, "npm", PROVIDER_PACKAGE, f"{label}.npm", changes)
    set_value(provider, "name", "Maestro Bridge", f"{label}.name", changes)
    options = _object(provider, ("options",), changes, label)
    set_value(options, "baseURL", base_url, f"{label}.options.baseURL", changes)
    set_value(options, "apiKey", api_key, API_KEY_PATH, changes)
    listed = _object(provider, ("models",), changes, label)
    for name in models:
        if name not in listed:
            listed[name] = {"name": name}
            changes.append(Change(f"{label}.models.{name}", None, {"name": name}))
    set_value(document, "model", f"{PROVIDER_ID}/{model}", "model", changes)
    if mcp is not None:
        server = _object(document, ("mcp", MCP_SERVER_NAME), changes)
        mcp_label = f"mcp.{MCP_SERVER_NAME}"
        for key in ("command", "environment"):  # a local server's: the entry is ours
            if key in server:
                changes.append(Change(f"{mcp_label}.{key}", server.pop(key), None))
        set_value(server, "type", "remote", f"{mcp_label}.type", changes)
        set_value(server, "url", mcp.url, f"{mcp_label}.url", changes)
        set_value(server, "enabled", True, f"{mcp_label}.enabled", changes)
        headers = server.get("headers")
        if mcp.bearer is not None or isinstance(headers, dict):
            headers = _object(server, ("headers",), changes, mcp_label)
            set_value(headers, "Authorization", mcp.bearer, MCP_AUTHORIZATION_PATH, changes)
            if not headers:
                del server["headers"]
    if not changes:
        return text, []
    return json_text(document), changes


def _object(
    container: dict[str, Any], path: tuple[str, ...], changes: list[Change], label: str = ""
) -> dict[str, Any]:
    """The object at `path`, created where missing; a value of another kind is an error."""
    for key in path:
        label = f"{label}.{key}" if label else key
        inner = container.setdefault(key, {})
        if not isinstance(inner, dict):
            raise ConfigError(
                f"its `{label}` is not an object: fix it by hand; nothing was written"
            )
        container = inner
    return container
