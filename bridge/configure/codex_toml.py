"""Our keys in Codex's `config.toml`: where the file is, and merging them in.

Only these keys are ours; everything else in the file (other settings, other providers,
profiles, comments, the order) is kept as it is, with tomlkit, which edits TOML in place:

    model = "..."                      model_provider = "maestro"
    model_context_window = N           (removed when the bridge does not tell N)
    [model_providers.maestro]          name, base_url, wire_api = "responses",
                                       env_key (removed when no API key is used)

Keys the user added to `[model_providers.maestro]` (such as `supports_websockets`) stay.

With `--tools`, the bridge's MCP server too, as Codex 0.169.0's `codex mcp add maestro --url
URL --bearer-token-env-var VAR` writes it (a Streamable HTTP server; Codex reads the Bearer
token from that variable when it connects, the same variable as the provider's `env_key`):

    [mcp_servers.maestro]              url, bearer_token_env_var (removed when no API key)

Keys the user added there (`startup_timeout_sec`, `enabled_tools`, ...) stay; those of a stdio
server (`command`, `args`, `env`, `env_vars`, `cwd`) are removed: the entry is the bridge's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from bridge.configure.config_file import Change, ConfigError, set_value
from bridge.configure.mcp_server import MCP_SERVER_NAME
from bridge.user_home import user_home

PROVIDER_ID = "maestro"
PROVIDER_NAME = "Maestro Bridge"
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"


@dataclass(frozen=True)
class CodexSettings:
    model: str
    base_url: str
    context_window: int | None
    env_key: str | None  # the variable Codex reads the API key from; None: no key
    mcp_url: str | None = None  # `--tools`: the bridge's MCP server, added as `maestro`


def codex_home(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Where Codex keeps its configuration, found as Codex finds it.

    `$CODEX_HOME` when set and not empty (Codex requires it to be an existing folder and
    does not expand `~`), else `~/.codex` (created when missing, as Codex does).
    """
    value = environ.get("CODEX_HOME", "")
    if value:
        home = Path(value)
        if not home.is_dir():
            raise ConfigError(
                f"CODEX_HOME is {value!r}, which is not an existing folder (Codex needs it "
                "to be one): create it, or unset CODEX_HOME to use ~/.codex."
            )
        return home.resolve()
    return user_home(environ, platform) / ".codex"


def merge(text: str, settings: CodexSettings) -> tuple[str, list[Change]]:
    """`text` (a config.toml, possibly empty) with our keys set; and what changed."""
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"it is not valid TOML ({exc}): fix it or move it away") from None
    changes: list[Change] = []
    top: dict[str, Any] = {
        "model": settings.model,
        "model_provider": PROVIDER_ID,
        "model_context_window": settings.context_window,
    }
    for key, value in top.items():
        set_value(doc, key, value, key, changes, _plain)

    block = _table(doc, "model_providers", PROVIDER_ID, changes)
    ours: dict[str, Any] = {
        "name": PROVIDER_NAME,
        "base_url": settings.base_url,
        "wire_api": "responses",
        "env_key": settings.env_key,
    }
    for key, value in ours.items():
        set_value(block, key, value, f"model_providers.{PROVIDER_ID}.{key}", changes, _plain)
    if settings.mcp_url is not None:
        _add_mcp_server(doc, settings.mcp_url, settings.env_key, changes)
    return (tomlkit.dumps(doc) if changes else text), changes


_STDIO_KEYS = ("command", "args", "env", "env_vars", "cwd")


def _add_mcp_server(doc: Any, url: str, env_key: str | None, changes: list[Change]) -> None:
    label = f"mcp_servers.{MCP_SERVER_NAME}"
    block = _table(doc, "mcp_servers", MCP_SERVER_NAME, changes)
    for key in _STDIO_KEYS:
        if key in block:
            changes.append(Change(f"{label}.{key}", _plain(block[key]), None))
            del block[key]
    set_value(block, "url", url, f"{label}.url", changes, _plain)
    set_value(
        block, "bearer_token_env_var", env_key, f"{label}.bearer_token_env_var", changes, _plain
    )


def _table(doc: Any, parent: str, name: str, changes: list[Change]) -> Any:
    """The table `[parent.name]`, created where missing (a value in its place is replaced)."""
    tables = doc.get(parent)
    if tables is None:
        doc[parent] = tomlkit.table(is_super_table=True)
        tables = doc[parent]
    elif not isinstance(tables, dict):
        raise ConfigError(f"its `{parent}` is not a table: fix it by hand")
    block = tables.get(name)
    if not isinstance(block, dict):
        if block is not None:  # a value where our table belongs: ours to replace
            changes.append(Change(f"{parent}.{name}", _plain(block), None))
            del tables[name]
        tables[name] = tomlkit.table()
        block = tables[name]
    return block


def _plain(item: Any) -> Any:
    """A tomlkit item as a plain Python value (for comparing and printing)."""
    unwrap = getattr(item, "unwrap", None)
    return unwrap() if callable(unwrap) else item
