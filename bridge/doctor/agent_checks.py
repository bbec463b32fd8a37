"""Each agent's own configuration, read as `configure` writes it: does it point at this bridge,
with a model the bridge has? An agent neither installed nor configured is one `info` line.

`run` needs none of this (it passes everything for the run), so a configuration that points
elsewhere is a failure only for starting the agent on its own."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from bridge.configure.claude_settings import claude_config_dir
from bridge.configure.codex_toml import codex_home
from bridge.configure.config_file import ConfigError, peek_json, peek_text
from bridge.configure.gemini_env import parse_dotenv
from bridge.configure.gemini_settings import gemini_dir
from bridge.configure.opencode_config import opencode_config_file
from bridge.configure.qwen_settings import qwen_dir
from bridge.doctor.report import Check
from bridge.run.connection import bridge_root
from bridge.user_home import user_home


@dataclass(frozen=True)
class Pointing:
    base_url: str | None  # where the agent's configuration sends it (None: nowhere of ours)
    model: str | None
    where: str  # the file it was read from


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def codex(environ: Mapping[str, str]) -> Pointing:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        path = codex_home(environ) / "config.toml"
        document: Any = tomlkit.parse(peek_text(path)).unwrap()
    except (TOMLKitError, ConfigError):
        return Pointing(None, None, "~/.codex/config.toml")
    provider = document.get("model_provider")
    base = _get(document, "model_providers", str(provider), "base_url") if provider else None
    return Pointing(base, document.get("model"), str(path))


def claude(environ: Mapping[str, str]) -> Pointing:
    path = claude_config_dir(environ) / "settings.json"
    env = _get(peek_json(path), "env") or {}
    return Pointing(env.get("ANTHROPIC_BASE_URL"), env.get("ANTHROPIC_MODEL"), str(path))


def gemini(environ: Mapping[str, str]) -> Pointing:
    path = gemini_dir(environ) / ".env"
    values = parse_dotenv(peek_text(path))
    return Pointing(values.get("GOOGLE_GEMINI_BASE_URL"), values.get("GEMINI_MODEL"), str(path))


def aider(environ: Mapping[str, str]) -> Pointing:
    path = user_home(environ) / ".aider.conf.yml"
    values: dict[str, str] = {}
    for line in peek_text(path).splitlines():
        name, sep, value = line.partition(":")
        if sep and not line.startswith((" ", "#")):
            values[name.strip()] = value.split(" #")[0].strip().strip("'\"")
    model = values.get("model")
    return Pointing(
        values.get("openai-api-base"), model.removeprefix("openai/") if model else None, str(path)
    )


def opencode(environ: Mapping[str, str]) -> Pointing:
    path = opencode_config_file(environ)
    config = peek_json(path)
    provider, _, model = str(config.get("model") or "").partition("/")
    return Pointing(
        _get(config, "provider", provider, "options", "baseURL"), model or None, str(path)
    )


def qwen(environ: Mapping[str, str]) -> Pointing:
    path = qwen_dir(environ) / "settings.json"
    settings = peek_json(path)
    model = _get(settings, "model", "name")
    entries = _get(settings, "modelProviders", "openai") or []
    base = next(
        (e.get("baseUrl") for e in entries if isinstance(e, dict) and e.get("id") == model), None
    )
    return Pointing(base, model, str(path))


READERS: dict[str, tuple[str, Callable[[Mapping[str, str]], Pointing]]] = {
    "codex": ("codex", codex),
    "claude": ("claude-code", claude),
    "gemini": ("gemini", gemini),
    "aider": ("", aider),  # no configure target: `run aider` only
    "opencode": ("opencode", opencode),
    "qwen": ("qwen", qwen),
}


def _same_bridge(url: str, root: str) -> bool:
    def key(text: str) -> tuple[str, int | None]:
        parts = urlsplit(bridge_root(text))
        host = "127.0.0.1" if parts.hostname in ("localhost", "::1") else parts.hostname
        return f"{parts.scheme}://{host}", parts.port

    return key(url) == key(root)


def agent_checks(root: str, models: list[str] | None, environ: Mapping[str, str]) -> list[Check]:
    checks = []
    for agent, (target, read) in READERS.items():
        installed = shutil.which(agent, path=environ.get("PATH")) is not None
        pointing = read(environ)
        name = f"agent {agent}"
        configure = f"maestro-bridge configure {target}" if target else ""
        by_hand = f"`{configure}`" if target else "openai-api-base in ~/.aider.conf.yml"
        use = f"use `maestro-bridge run {agent}`, or {by_hand}"
        if pointing.base_url is None:
            if installed:
                checks.append(Check(name, "info", "installed, not configured for the bridge", use))
            continue
        if not _same_bridge(pointing.base_url, root):
            detail = f"{pointing.where} points it at {pointing.base_url}, not at the bridge {root}"
            checks.append(Check(name, "fail" if installed else "warn", detail, use))
        elif models is not None and pointing.model and pointing.model not in models:
            detail = (
                f"{pointing.where} asks for {pointing.model!r}, which the bridge does not offer"
            )
            fix = f"`{configure} --model NAME`" if target else "model in ~/.aider.conf.yml"
            fix += f" (one listed above), or `maestro-bridge run {agent}`"
            checks.append(Check(name, "fail", detail, fix))
        else:
            model = f" with {pointing.model!r}" if pointing.model else ""
            checks.append(Check(name, "ok", f"{pointing.where} points it at the bridge{model}"))
    return checks
