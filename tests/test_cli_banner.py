"""The banner `serve` prints: ready-to-paste settings for each client, never the API key."""

from __future__ import annotations

import shlex

from bridge.serve_banner import banner as _banner

URL = "http://127.0.0.1:23335/v1"


def _command(banner: str, program: str) -> list[str]:
    lines = [line.strip() for line in banner.splitlines()]
    found = [line for line in lines if line.startswith(program + " ")]
    assert len(found) == 1, banner
    return shlex.split(found[0])


def test_aider_command_points_at_the_chat_completions_base_url() -> None:
    words = _command(_banner(URL, None, "gpt-4.1"), "aider")
    options = dict(zip(words[1::2], words[2::2], strict=True))
    assert options == {
        "--openai-api-base": URL,
        "--openai-api-key": "unused",
        "--model": "openai/gpt-4.1",
    }


def test_with_an_api_key_the_banner_names_its_variable_not_the_key() -> None:
    banner = _banner(URL, "s3cret-key", "sim-echo")
    assert "s3cret-key" not in banner
    words = _command(banner, "aider")
    assert words[words.index("--openai-api-key") + 1] == "$MAESTRO_BRIDGE_API_KEY"
    assert "ANTHROPIC_AUTH_TOKEN=$MAESTRO_BRIDGE_API_KEY" in banner
