"""API keys never reach a log line, whatever logs it and at whatever level.

Kept free of aiohttp: both processes install it when they configure logging.
"""

from __future__ import annotations

import logging
import re

# `"apiKey": "..."` in JSON and `'apiKey': '...'` in a logged dict repr (pygls at DEBUG logs
# whole messages, the editor's initialize options included).
_KEY_FIELD = re.compile(r"""(["']?api_?key["']?\s*[:=]\s*["'])[^"']*(["'])""", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[^\s\"',]+", re.IGNORECASE)


class RedactSecrets(logging.Filter):
    """Blanks API keys out of every log record, whatever logs it and at whatever level."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        clean = _BEARER.sub(r"\1***", _KEY_FIELD.sub(r"\1***\2", text))
        for secret in self.secrets:
            clean = clean.replace(secret, "***")
        if clean != text:
            record.msg, record.args = clean, None
        return True


REDACTOR = RedactSecrets()


def redact_logs(handlers: list[logging.Handler], secret: str | None = None) -> None:
    """Install the redacting filter on these handlers (once), and remember a known secret."""
    if secret:
        REDACTOR.secrets.add(secret)
    for handler in handlers:
        if REDACTOR not in handler.filters:
            handler.addFilter(REDACTOR)
