"""Our keys in Codex's `config.toml`: where the file is, and merging them in.

Only these keys are ours; everything else in the file (other settings, other providers,
profiles, comments, the order) is kept as it is, with tomlkit, which edits TOML in place:

    model = "..."                      model_provider = "maestro"
    model_context_window = N           (removed when the bridge does not tell N)
    [model_providers.maestro]          name, base_url, wire_api = "responses",
                                       env_key (removed when no API key is used)

Keys the user added to `[model_providers.maestro]` (such as `supports_websockets`) stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from bridge.configure.config_file import Change, ConfigError
from bridge.configure.user_home import user_home

PROVIDER_ID = "maestro"
PROVIDER_NAME = "Maestro Bridge"
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"


@dataclass(frozen=True)
class CodexSettings:
    model: str
    base_url: str
    context_window: int | None
    env_key: str | None  # the variable Codex reads the API key from; None: no key


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
        _set(doc, key, value, key, changes)

    providers = doc.get("model_providers")
    if providers is None:
        providers = tomlkit.table(is_super_table=True)
        doc["model_providers"] = providers
        providers = doc["model_providers"]
    elif not isinstance(providers, dict):
        raise ConfigError("its `model_providers` is not a table: fix it by hand")
    block = providers.get(PROVIDER_ID)
    if not isinstance(block, dict):
        if block is not None:  # a value where our table belongs: ours to replace
            changes.append(Change(f"model_providers.{PROVIDER_ID}", _plain(block), None))
            del providers[PROVIDER_ID]
        providers[PROVIDER_ID] = tomlkit.table()
        block = providers[PROVIDER_ID]
    ours: dict[str, Any] = {
        "name": PROVIDER_NAME,
        "base_url": settings.base_url,
        "wire_api": "responses",
        "env_key": settings.env_key,
    }
    for key, value in ours.items():
        _set(block, key, value, f"model_providers.{PROVIDER_ID}.{key}", changes)
    return (tomlkit.dumps(doc) if changes else text), changes


def _set(container: Any, key: str, value: Any, label: str, changes: list[Change]) -> None:
    """Sets (or, for None, removes) `key`, recording a Change when that changes anything."""
    old = _plain(container[key]) if key in container else None
    if old == value and type(old) is type(value):
        return
    if value is None:
        del container[key]
    else:
        container[key] = value
    changes.append(Change(label, old, value))


def _plain(item: Any) -> Any:
    """A tomlkit item as a plain Python value (for comparing and printing)."""
    unwrap = getattr(item, "unwrap", None)
    return unwrap() if callable(unwrap) else item
