"""The agent or SDK behind a request, named from its User-Agent (and Google's client header).

Only a product name is kept, never the whole header: it can carry a machine's details.
"""

from __future__ import annotations

from collections.abc import Mapping

# (what the User-Agent starts with or contains, lower case) -> client name; first match wins.
# Agents before the SDKs they are built on: Gemini CLI sends google-genai's header too.
_BY_USER_AGENT: tuple[tuple[str, str], ...] = (
    ("codex", "codex"),  # codex_cli_rs/..., codex_exec/...
    ("claude-cli/", "claude-code"),
    ("claude-code/", "claude-code"),
    ("geminicli", "gemini-cli"),  # GeminiCLI/..., GeminiCLI-tui/...
    ("aider/", "aider"),
    ("agents/", "openai-agents"),  # the OpenAI Agents SDK
    ("openai/", "openai-sdk"),  # OpenAI/Python, OpenAI/JS (Aider sends OpenAI/Python too)
    ("asyncopenai/", "openai-sdk"),  # the Python SDK's AsyncOpenAI
    ("anthropic/", "anthropic-sdk"),
    ("asyncanthropic/", "anthropic-sdk"),  # the Python SDK's AsyncAnthropic
    ("google-genai-sdk/", "google-genai-sdk"),
    ("ai-sdk/", "vercel-ai-sdk"),
)

OTHER = "other"


def client_of(headers: Mapping[str, str]) -> str:
    """The client's name (`codex`, `claude-code`, `gemini-cli`, ..., else `other`)."""
    agent = headers.get("User-Agent", "").lower()
    for marker, name in _BY_USER_AGENT:
        if agent.startswith(marker) or f" {marker}" in agent:
            return name
    if "google-genai-sdk/" in headers.get("x-goog-api-client", "").lower():
        return "google-genai-sdk"
    return OTHER
