"""Codex, Aider and Qwen Code take the bridge as command-line options, which win over their
configuration files for this run and are written nowhere (checked with Codex 0.169.0, Aider
0.86.2 and Qwen Code 0.24.4)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from bridge.run.agent_spec import Launch, Target
from bridge.run.connection import API_KEY_ENV

PROVIDER = "maestro"


def _toml(value: str) -> str:
    """A TOML basic string (a JSON string is one) for Codex's `-c key=value`."""
    return json.dumps(value)


def codex(target: Target, environ: Mapping[str, str]) -> Launch:
    """`codex -c ...`: the `maestro` provider (Responses API) and the model, as overrides of
    config.toml; the key (when the bridge wants one) from $MAESTRO_BRIDGE_API_KEY, the
    provider's `env_key`."""
    provider = f"model_providers.{PROVIDER}"
    overrides = {
        "model_provider": _toml(PROVIDER),
        f"{provider}.name": _toml("Maestro Bridge"),
        f"{provider}.base_url": _toml(target.base_url),
        f"{provider}.wire_api": _toml("responses"),
        "model": _toml(target.model),
    }
    env: dict[str, str | None] = {}
    if target.api_key:
        overrides[f"{provider}.env_key"] = _toml(API_KEY_ENV)
        env[API_KEY_ENV] = target.api_key
    if target.context_window:
        overrides["model_context_window"] = str(target.context_window)
    args = [arg for key, value in overrides.items() for arg in ("-c", f"{key}={value}")]
    return Launch("codex", args, env)


def aider(target: Target, environ: Mapping[str, str]) -> Launch:
    """`aider --openai-api-base ... --openai-api-key ... --model openai/MODEL`, with the model's
    window described in a metadata file of the run (else Aider warns it does not know it)."""
    model = f"openai/{target.model}"
    args = ["--openai-api-base", target.base_url, "--openai-api-key", target.key_or_placeholder]
    args += ["--model", model]
    files: dict[str, str] = {}
    if target.context_window:
        info = {
            model: {
                "max_input_tokens": target.context_window,
                "input_cost_per_token": 0.0,
                "output_cost_per_token": 0.0,
                "litellm_provider": "openai",
                "mode": "chat",
            }
        }
        files["aider-model-metadata.json"] = json.dumps(info)
        args += ["--model-metadata-file", "{run}/aider-model-metadata.json"]
    return Launch("aider", args, {}, files)


def qwen(target: Target, environ: Mapping[str, str]) -> Launch:
    """`qwen --auth-type openai --openai-base-url ... --openai-api-key ... --model MODEL`."""
    args = ["--auth-type", "openai", "--openai-base-url", target.base_url]
    args += ["--openai-api-key", target.key_or_placeholder, "--model", target.model]
    return Launch("qwen", args)
