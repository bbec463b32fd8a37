"""Google's ways of sending a key (`x-goog-api-key`, `?key=`) never reach a log line, and the
serve banner's Gemini CLI line names the key's variable, never the key."""

from __future__ import annotations

import shlex

from bridge.log_redaction import RedactSecrets
from bridge.serve_banner import banner as _banner

URL = "http://127.0.0.1:23335/v1"


def test_query_keys_and_google_key_headers_are_redacted() -> None:
    redact = RedactSecrets().redact
    line = "POST /v1beta/models/m:generateContent?alt=sse&key=AIzaSecret123 HTTP/1.1"
    assert redact(line) == "POST /v1beta/models/m:generateContent?alt=sse&key=*** HTTP/1.1"
    assert redact("GET /v1beta/models?key=AIzaSecret123&pageSize=2") == (
        "GET /v1beta/models?key=***&pageSize=2"
    )
    assert redact("b'x-goog-api-key: AIzaSecret123\\x01'") == "b'x-goog-api-key: ***\\x01'"
    assert redact("?monkey=banana") == "?monkey=banana"  # only the `key` parameter


def _gemini_words(banner: str) -> list[str]:
    lines = [line.strip() for line in banner.splitlines()]
    found = [line for line in lines if line.startswith("GOOGLE_GEMINI_BASE_URL=")]
    assert len(found) == 1, banner
    return shlex.split(found[0])


def test_gemini_cli_line_points_at_the_root_url() -> None:
    words = _gemini_words(_banner(URL, None, "sim-echo"))
    assert words == [
        "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:23335",
        "GEMINI_API_KEY=unused",
        "gemini",
        "-m",
        "sim-echo",
    ]


def test_with_an_api_key_the_gemini_line_names_its_variable() -> None:
    banner = _banner(URL, "s3cret-key", "sim-echo")
    assert "s3cret-key" not in banner
    assert "GEMINI_API_KEY=$MAESTRO_BRIDGE_API_KEY" in _gemini_words(banner)
