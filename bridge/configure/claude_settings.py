"""Our keys in Claude Code's `settings.json`: where the file is, and merging them in.

Claude Code applies the `env` object of its user settings to every session, so that is
where the bridge goes; only these keys of `env` are ours:

    ANTHROPIC_BASE_URL           the bridge's root URL (Claude Code adds /v1/messages)
    ANTHROPIC_AUTH_TOKEN         the bridge's API key, or a placeholder (sent as a Bearer token)
    ANTHROPIC_MODEL              the main model
    ANTHROPIC_DEFAULT_OPUS_MODEL, ANTHROPIC_DEFAULT_SONNET_MODEL, ANTHROPIC_DEFAULT_HAIKU_MODEL
    ANTHROPIC_SMALL_FAST_MODEL   the small model of `--small-model` (removed without it)
    CLAUDE_CODE_AUTO_COMPACT_WINDOW   the main model's input tokens (removed when unknown)

Every other key of the file and of `env` stays, in its order. The file is written back as
JSON with a 2-space indent; Claude Code wants the values of `env` as strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bridge.configure.config_file import Change, ConfigError, json_object, json_text
from bridge.user_home import user_home

AUTH_TOKEN_KEY = "ANTHROPIC_AUTH_TOKEN"
# Sent when the bridge wants no key: Claude Code needs some credential to start without a
# login, and a bridge without a key accepts any.
PLACEHOLDER_TOKEN = "maestro-bridge-no-key"


@dataclass(frozen=True)
class ClaudeSettings:
    base_url: str  # without /v1
    auth_token: str
    model: str
    family_models: Mapping[str, str]  # "opus" / "sonnet" / "haiku" -> model id
    context_window: int | None
    # `--small-model`: also the haiku model. Claude Code 2.1.330 sends its background requests
    # (prompt hooks, web-page digests, ...) to ANTHROPIC_SMALL_FAST_MODEL when set,
    # else to the haiku model (read in its bundle: the small-fast model wins over haiku).
    small_model: str | None = None


def claude_config_dir(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Where Claude Code keeps its user settings: `$CLAUDE_CONFIG_DIR` when set and not
    empty (`~` expanded), else `~/.claude`. Created on writing when missing."""
    value = environ.get("CLAUDE_CONFIG_DIR", "")
    if value:
        return Path(value).expanduser().absolute()
    return user_home(environ, platform) / ".claude"


def env_values(settings: ClaudeSettings) -> dict[str, str | None]:
    """Our `env` keys and their values (None: the key is removed)."""
    families = settings.family_models
    window = settings.context_window
    return {
        "ANTHROPIC_BASE_URL": settings.base_url,
        AUTH_TOKEN_KEY: settings.auth_token,
        "ANTHROPIC_MODEL": settings.model,
        "ANTHROPIC_DEFAULT_OPUS_MODEL": families["opus"],
        "ANTHROPIC_DEFAULT_SONNET_MODEL": families["sonnet"],
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": settings.small_model or families["haiku"],
        "ANTHROPIC_SMALL_FAST_MODEL": settings.small_model,
        "CLAUDE_CODE_AUTO_COMPACT_WINDOW": None if window is None else str(window),
    }


def merge(text: str, settings: ClaudeSettings) -> tuple[str, list[Change]]:
    """`text` (a settings.json, possibly empty) with our keys set; and what changed."""
    document = json_object(text, ": fix it or move it away; nothing was written")
    env = document.get("env")
    if env is None:
        env = document["env"] = {}
    elif not isinstance(env, dict):
        raise ConfigError("its `env` is not an object: fix it by hand")
    changes: list[Change] = []
    for key, value in env_values(settings).items():
        old = env.get(key)
        if old == value:
            continue
        if value is None:
            del env[key]
        else:
            env[key] = value
        changes.append(Change(f"env.{key}", old, value))
    if not changes:
        return text, changes
    return json_text(document), changes
