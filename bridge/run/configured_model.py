"""The model an agent's own configuration names, read (never written) so that `run` keeps it
when the bridge has it. Anything unreadable counts as no model."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from bridge.configure.claude_settings import claude_config_dir
from bridge.configure.codex_toml import codex_home
from bridge.configure.config_file import ConfigError, peek_json, peek_text
from bridge.configure.gemini_env import parse_dotenv
from bridge.configure.gemini_settings import gemini_dir
from bridge.configure.opencode_config import opencode_config_file
from bridge.configure.qwen_settings import qwen_dir
from bridge.user_home import user_home


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def codex(environ: Mapping[str, str]) -> str | None:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(peek_text(codex_home(environ) / "config.toml"))
    except (TOMLKitError, ConfigError):
        return None
    return _string(document.get("model"))


def claude(environ: Mapping[str, str]) -> str | None:
    settings = peek_json(claude_config_dir(environ) / "settings.json")
    env = settings.get("env")
    from_env = _string(env.get("ANTHROPIC_MODEL")) if isinstance(env, dict) else None
    return from_env or _string(settings.get("model"))


def gemini(environ: Mapping[str, str]) -> str | None:
    folder = gemini_dir(environ)
    from_env = _string(parse_dotenv(peek_text(folder / ".env")).get("GEMINI_MODEL"))
    model = peek_json(folder / "settings.json").get("model")
    return from_env or (_string(model.get("name")) if isinstance(model, dict) else None)


def aider(environ: Mapping[str, str]) -> str | None:
    """`model:` of ~/.aider.conf.yml (one plain line; Aider's `openai/` prefix dropped)."""
    found = re.search(
        r"(?m)^model:\s*['\"]?([^'\"#\s]+)", peek_text(user_home(environ) / ".aider.conf.yml")
    )
    return found.group(1).removeprefix("openai/") if found else None


def opencode(environ: Mapping[str, str]) -> str | None:
    """`model` of OpenCode's global config, `provider/model`: the model part."""
    model = _string(peek_json(opencode_config_file(environ)).get("model"))
    return model.partition("/")[2] or None if model else None


def qwen(environ: Mapping[str, str]) -> str | None:
    model = peek_json(qwen_dir(environ) / "settings.json").get("model")
    return _string(model.get("name")) if isinstance(model, dict) else None


READERS: dict[str, Callable[[Mapping[str, str]], str | None]] = {
    "codex": codex,
    "claude": claude,
    "gemini": gemini,
    "aider": aider,
    "opencode": opencode,
    "qwen": qwen,
}
