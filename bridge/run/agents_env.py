"""Claude Code and OpenCode take the bridge through their environment (with a settings flag
where a variable alone would lose against the user's files), checked with Claude Code 2.1.330
and OpenCode 1.18.33. Gemini CLI: agent_gemini."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from bridge.configure.bridge_models import ListedModel
from bridge.configure.claude_choice import choose_claude_models
from bridge.run.agent_spec import Launch, Target

PROVIDER = "maestro"


def claude(target: Target, environ: Mapping[str, str]) -> Launch:
    """The variables Claude Code reads (the bridge, a Bearer token, the model for each of its
    families), also as `--settings '{"env": ...}'`: the `env` of the user's settings.json
    would otherwise win over the process's environment. ANTHROPIC_API_KEY is left out: Claude
    Code would send it to the bridge too."""
    listed = [ListedModel(model) for model in target.models]
    families = choose_claude_models(listed, target.model).family_models
    values = {
        "ANTHROPIC_BASE_URL": target.root,
        "ANTHROPIC_AUTH_TOKEN": target.key_or_placeholder,
        "ANTHROPIC_MODEL": target.model,
        **{f"ANTHROPIC_DEFAULT_{name.upper()}_MODEL": model for name, model in families.items()},
    }
    env: dict[str, str | None] = {**values, "ANTHROPIC_API_KEY": None}
    return Launch("claude", ["--settings", json.dumps({"env": values})], env)


def opencode(target: Target, environ: Mapping[str, str]) -> Launch:
    """$OPENCODE_CONFIG_CONTENT, the configuration OpenCode reads after the user's files: the
    `maestro` provider (Chat Completions, through the AI SDK's openai-compatible package that
    OpenCode bundles) with every model the bridge lists, and the model. What the variable held
    already stays, ours merged over it."""
    models = {model: {"name": model} for model in target.models}
    ours: dict[str, Any] = {
        "provider": {
            PROVIDER: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Maestro Bridge",
                "options": {"baseURL": target.base_url, "apiKey": target.key_or_placeholder},
                "models": models,
            }
        },
        "model": f"{PROVIDER}/{target.model}",
    }
    try:
        theirs = json.loads(environ.get("OPENCODE_CONFIG_CONTENT") or "{}")
    except ValueError:
        theirs = {}
    merged = _deep_merge(theirs if isinstance(theirs, dict) else {}, ours)
    return Launch("opencode", [], {"OPENCODE_CONFIG_CONTENT": json.dumps(merged)})


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        old = merged.get(key)
        merged[key] = (
            _deep_merge(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return merged
