"""Gemini CLI's folder, and our one key in its `settings.json`.

Gemini CLI 0.61.0 keeps its user files in `$GEMINI_CLI_HOME/.gemini` when that variable is
set, else `~/.gemini`. With `security.auth.selectedType = "gemini-api-key"` it authenticates
with GEMINI_API_KEY (from `.env`) and sends it as `x-goog-api-key` to GOOGLE_GEMINI_BASE_URL;
without it, Gemini CLI would ask at its first start how to sign in.

Every other key of the file stays, in its order; the file is written back as JSON with a
2-space indent. Gemini CLI also accepts comments in it, which a JSON rewrite would lose: such
a file is refused, unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bridge.configure.config_file import Change, ConfigError, json_object, json_text
from bridge.configure.user_home import user_home

AUTH_TYPE = "gemini-api-key"
AUTH_KEY_PATH = ("security", "auth", "selectedType")
NOT_JSON = (
    "; Gemini CLI allows comments there, which this command cannot keep: remove them, or set "
    f'security.auth.selectedType to "{AUTH_TYPE}" by hand; nothing was written'
)


def gemini_dir(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """`$GEMINI_CLI_HOME/.gemini` when that is set and not empty, else `~/.gemini`."""
    home = environ.get("GEMINI_CLI_HOME", "")
    base = Path(home).expanduser().absolute() if home else user_home(environ, platform)
    return base / ".gemini"


def merge_settings(text: str) -> tuple[str, list[Change]]:
    """`text` (a settings.json, possibly empty) with `security.auth.selectedType` set to
    `gemini-api-key`; and what changed."""
    document = json_object(text, NOT_JSON)
    container = document
    for depth, key in enumerate(AUTH_KEY_PATH[:-1]):
        inner = container.setdefault(key, {})
        if not isinstance(inner, dict):
            name = ".".join(AUTH_KEY_PATH[: depth + 1])
            raise ConfigError(f"its `{name}` is not an object: fix it by hand; nothing was written")
        container = inner
    last = AUTH_KEY_PATH[-1]
    old = container.get(last)
    if old == AUTH_TYPE:
        return text, []
    container[last] = AUTH_TYPE
    change = Change(".".join(AUTH_KEY_PATH), old, AUTH_TYPE)
    return json_text(document), [change]
