"""What `maestro-bridge serve` prints once it listens: how each client reaches it."""

from __future__ import annotations


def banner(url: str, api_key: str | None, model: str = "sim-echo") -> str:
    key_env = "MAESTRO_BRIDGE_API_KEY"
    # The key itself is never printed: terminals and CI logs keep what they show.
    auth = f'-H "Authorization: Bearer ${key_env}" ' if api_key else ""
    return f"""
Codex CLI (~/.codex/config.toml):
  model = "{model}"
  model_provider = "maestro"

  [model_providers.maestro]
  name = "Maestro Bridge"
  base_url = "{url}"
  wire_api = "responses"{
        f'''
  env_key = "{key_env}"'''
        if api_key
        else ""
    }

Claude Code (or `maestro-bridge configure claude-code`):
  ANTHROPIC_BASE_URL={url.removesuffix("/v1")} ANTHROPIC_AUTH_TOKEN={
        "$" + key_env if api_key else "unused"
    } ANTHROPIC_MODEL={model} claude

Aider (and other Chat Completions clients: base URL {url}):
  aider --openai-api-base {url} --openai-api-key {
        "$" + key_env if api_key else "unused"
    } --model openai/{model}

Gemini CLI (run `maestro-bridge configure gemini` once: it also selects the API-key sign-in
Gemini CLI needs for a base URL; other Gemini API clients: base URL {url.removesuffix("/v1")}):
  GOOGLE_GEMINI_BASE_URL={url.removesuffix("/v1")} GEMINI_API_KEY={
        "$" + key_env if api_key else "unused"
    } gemini -m {model}

curl:
  curl -sN {url}/responses -H 'Content-Type: application/json' {auth}\\
    -d '{{"model": "{model}", "input": "Hello!", "stream": true}}'

Press Ctrl-C to stop."""
