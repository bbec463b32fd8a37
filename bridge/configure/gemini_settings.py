"""Gemini CLI's folder, and our keys in its `settings.json`.

Gemini CLI 0.61.0 keeps its user files in `$GEMINI_CLI_HOME/.gemini` when that variable is
set, else `~/.gemini`. With `security.auth.selectedType = "gemini-api-key"` it authenticates
with GEMINI_API_KEY (from `.env`) and sends it as `x-goog-api-key` to GOOGLE_GEMINI_BASE_URL;
without it, Gemini CLI would ask at its first start how to sign in.

With `--router-model`, the model of Gemini CLI's background requests too. Gemini CLI 0.61.0
names each of them by a model-config alias (`modelConfigs.aliases` in its bundle: the router's
`classifier`, `next-speaker-checker`, `loop-detection`, `summarizer-shell`, ...), each bound
to a Gemini flash or flash-lite id the bridge does not serve; one entry of
`modelConfigs.customOverrides` per alias, `{"match": {"model": ALIAS}, "modelConfig":
{"model": ROUTER}}`, sends it to the router model instead and keeps the alias's other options
(an override at the alias's own level wins over those of the models it extends). Entries of
that exact shape for those aliases are ours (removed again by a run without the option);
every other entry stays.

With `--tools`, the bridge's MCP server too, as Gemini CLI 0.61.0's `gemini mcp add --scope
user --transport http -H "Authorization: Bearer KEY" maestro URL` writes it:

    "mcpServers": {"maestro": {"url": "<bridge>/mcp", "type": "http",
                               "headers": {"Authorization": "Bearer ${MAESTRO_BRIDGE_API_KEY}"}}}

The header names the variable rather than the key (Gemini CLI expands `${VAR}` in settings
values: bridge/configure/mcp_server.py); without a key there is no header. Keys of other
transports (`httpUrl`, `command`, `args`, `env`, `cwd`, `tcp`) are removed from that entry;
the user's others (`timeout`, `trust`, `includeTools`...) stay.

Every other key of the file stays, in its order; the file is written back as JSON with a
2-space indent. Gemini CLI also accepts comments in it, which a JSON rewrite would lose: such
a file is refused, unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bridge.configure.config_file import Change, ConfigError, json_object, json_text, object_at
from bridge.configure.mcp_server import McpServer, merge_json_server
from bridge.user_home import user_home

AUTH_TYPE = "gemini-api-key"
AUTH_KEY_PATH = ("security", "auth", "selectedType")
OVERRIDES_PATH = ("modelConfigs", "customOverrides")
# Gemini CLI 0.61.0's aliases of its background requests (its DEFAULT_MODEL_CONFIGS): the
# model router's classifier, its follow-up checks and its helpers. Chat compression stays on
# the main model's alias: it rewrites the whole conversation.
BACKGROUND_ALIASES = (
    "classifier",  # the model router: which model answers the next turn
    "next-speaker-checker",  # whether the model should speak again
    "loop-detection",  # whether the conversation loops
    "loop-detection-double-check",
    "summarizer-default",  # summaries of long tool output
    "summarizer-shell",  # summaries of long shell output
    "edit-corrector",  # fixes an edit whose old text does not match
    "llm-edit-fixer",
    "prompt-completion",  # completion of the prompt being typed
    "fast-ack-helper",  # the short acknowledgement before a long answer
    "web-fetch-fallback",  # a fetched page's digest
)
NOT_JSON = (
    "; Gemini CLI allows comments there, which this command cannot keep: remove them, or set "
    f'security.auth.selectedType to "{AUTH_TYPE}" by hand; nothing was written'
)


def gemini_dir(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """`$GEMINI_CLI_HOME/.gemini` when that is set and not empty, else `~/.gemini`."""
    home = environ.get("GEMINI_CLI_HOME", "")
    base = Path(home).expanduser().absolute() if home else user_home(environ, platform)
    return base / ".gemini"


# Keys of Gemini CLI's other transports (`httpUrl` wins over `url` in Gemini CLI).
_OTHER_TRANSPORT_KEYS = ("httpUrl", "command", "args", "env", "cwd", "tcp")


def merge_settings(
    text: str, router_model: str | None = None, mcp: McpServer | None = None
) -> tuple[str, list[Change]]:
    """`text` (a settings.json, possibly empty) with `security.auth.selectedType` set to
    `gemini-api-key`, given a router model the background aliases sent to it, and given `mcp`
    the bridge's MCP server; and what changed."""
    document = json_object(text, NOT_JSON)
    changes: list[Change] = []
    auth = object_at(document, AUTH_KEY_PATH[:-1])
    last = AUTH_KEY_PATH[-1]
    old = auth.get(last)
    if old != AUTH_TYPE:
        auth[last] = AUTH_TYPE
        changes.append(Change(".".join(AUTH_KEY_PATH), old, AUTH_TYPE))
    changes += _route_background(document, router_model)
    if mcp is not None:
        ours = {"url": mcp.url, "type": "http", "headers.Authorization": mcp.authorization}
        changes += merge_json_server(document, ours, _OTHER_TRANSPORT_KEYS)
    if not changes:
        return text, []
    return json_text(document), changes


def _route_background(document: dict[str, Any], router_model: str | None) -> list[Change]:
    """Our override entries for `router_model`; without one, ours are removed (Gemini CLI's
    own models again), like every other key that configure writes from its options."""
    configs = document.get(OVERRIDES_PATH[0])
    if router_model is None and not isinstance(configs, dict):
        return []
    configs = object_at(document, OVERRIDES_PATH[:-1])
    old = configs.get(OVERRIDES_PATH[-1])
    if old is None:
        old = []
    elif not isinstance(old, list):
        name = ".".join(OVERRIDES_PATH)
        raise ConfigError(f"its `{name}` is not a list: fix it by hand; nothing was written")
    before = {alias: _routed_to(old, alias) for alias in BACKGROUND_ALIASES}
    changed = [alias for alias in BACKGROUND_ALIASES if before[alias] != router_model]
    if not changed:
        return []
    kept = [entry for entry in old if _our_alias(entry) is None]
    ours = [
        {"match": {"model": alias}, "modelConfig": {"model": router_model}}
        for alias in BACKGROUND_ALIASES
        if router_model is not None
    ]
    configs[OVERRIDES_PATH[-1]] = kept + ours  # ours last: of equal overrides the last wins
    name = ".".join(OVERRIDES_PATH)
    return [Change(f"{name}[{alias}]", before[alias], router_model) for alias in changed]


def _our_alias(entry: Any) -> str | None:
    """The alias an override entry of our shape routes, else None (not ours)."""
    if not isinstance(entry, dict) or set(entry) != {"match", "modelConfig"}:
        return None
    match, config = entry["match"], entry["modelConfig"]
    if not isinstance(match, dict) or set(match) != {"model"}:
        return None
    if not isinstance(config, dict) or set(config) != {"model"}:
        return None
    alias = match["model"]
    return alias if alias in BACKGROUND_ALIASES else None


def _routed_to(entries: list[Any], alias: str) -> Any:
    """The model the last of our entries for `alias` sends it to, else None."""
    found = None
    for entry in entries:
        if _our_alias(entry) == alias:
            found = entry["modelConfig"]["model"]
    return found
