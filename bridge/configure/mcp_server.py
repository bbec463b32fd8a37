"""The bridge's MCP server (the editor's tools) as `--tools` adds it to a client.

Every client gets it under the name `maestro`, at the bridge's root + `/mcp` (Streamable
HTTP), with the bridge's API key as a Bearer token when the bridge has one: never the key
itself but a reference to `$MAESTRO_BRIDGE_API_KEY` that the client expands when it connects
(Codex: `bearer_token_env_var`; Claude Code 2.1.330 and Gemini CLI: `${MAESTRO_BRIDGE_API_KEY}`
in `headers`, measured: tests/test_configure_tools_cli.py). The variable must be set where the
agent runs (VS Code's integrated terminals have it; docs/security.md). Claude Code and
Gemini CLI keep their servers in a JSON object `mcpServers` (`merge_json_server` here), Codex
in the TOML tables `[mcp_servers.NAME]` (codex_toml).

Only our keys of the `maestro` entry change; keys the user added there (a timeout, a tool
filter, other headers) stay. Keys that would make the entry another transport (a `command`
of a stdio server...) are removed: the entry is the bridge's. A run without `--tools` leaves
the entry alone; each client's own `mcp remove maestro` removes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bridge.configure.config_file import Change, ConfigError, set_value

MCP_SERVER_NAME = "maestro"
MCP_PATH = "/mcp"
KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
KEY_REFERENCE = "${" + KEY_ENV + "}"
KEY_ENV_NOTE = (
    f"{{client}} sends the key to the MCP server from ${KEY_ENV} (the configuration names "
    "the variable, not the key): export it where you run {command} (VS Code's integrated "
    "terminals have it)."
)
TOOLS_OFF_NOTE = (
    "The bridge lists the editor's tools only while they are on: VS Code setting "
    "maestroBridge.tools.enable, or `maestro-bridge serve --tools`."
)


@dataclass(frozen=True)
class McpServer:
    """What a client needs to reach the bridge's MCP server."""

    url: str  # <bridge root>/mcp
    api_key: str | None  # None: the bridge wants no key, no header is written

    @classmethod
    def of_bridge(cls, root: str, api_key: str | None) -> McpServer:
        return cls(f"{root.rstrip('/')}{MCP_PATH}", api_key)

    @property
    def authorization(self) -> str | None:
        """The Authorization header's value as written: a reference to the variable."""
        return f"Bearer {KEY_REFERENCE}" if self.api_key else None

    @property
    def bearer(self) -> str | None:
        """The header with the key itself, for an agent that expands no `${VAR}` in its MCP
        headers (OpenCode writes `{env:VAR}` instead, and its configuration holds the key for
        the models already)."""
        return f"Bearer {self.api_key}" if self.api_key else None


def merge_json_server(
    document: dict[str, Any],
    ours: Mapping[str, Any],
    foreign: tuple[str, ...],
) -> list[Change]:
    """Sets `ours` (dotted paths inside the entry -> value; None removes) in
    `document["mcpServers"]["maestro"]`, removing the `foreign` keys; what changed."""
    label = f"mcpServers.{MCP_SERVER_NAME}"
    servers = document.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError("its `mcpServers` is not an object: fix it by hand; nothing was written")
    changes: list[Change] = []
    entry = servers.get(MCP_SERVER_NAME)
    if not isinstance(entry, dict):
        if entry is not None:  # a value where our object belongs: ours to replace
            changes.append(Change(label, entry, None))
        entry = servers[MCP_SERVER_NAME] = {}
    for key in foreign:
        if key in entry:
            changes.append(Change(f"{label}.{key}", entry.pop(key), None))
    for path, value in ours.items():
        *parents, last = path.split(".")
        container = entry
        for parent in parents:
            inner = container.get(parent)
            if inner is None and value is None:
                break
            if inner is None:
                inner = container[parent] = {}
            if not isinstance(inner, dict):
                raise ConfigError(
                    f"its `{label}.{parent}` is not an object: fix it by hand; nothing was written"
                )
            container = inner
        else:
            before = len(changes)
            set_value(container, last, value, f"{label}.{path}", changes)
            if parents and len(changes) > before and not container:
                del entry[parents[0]]  # an empty `headers` left by our removal
    return changes
