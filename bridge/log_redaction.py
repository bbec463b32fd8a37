"""API keys never reach a log line, whatever logs it and at whatever level.

Kept free of aiohttp: both processes install it when they configure logging. Exception text
counts too: aiohttp logs a malformed request (a header too long, a control character in it)
with a traceback whose message quotes the header, key included.
"""

from __future__ import annotations

import logging
import re

# `"apiKey": "..."` in JSON and `'apiKey': '...'` in a logged dict repr (pygls at DEBUG logs
# whole messages, the editor's initialize options included).
_KEY_FIELD = re.compile(r"""(["']?api_?key["']?\s*[:=]\s*["'])[^"']*(["'])""", re.IGNORECASE)
_BEARER = re.compile(r"(bearer\s+)[^\s\"',]+", re.IGNORECASE)
# How a key may be quoted in a header aiohttp refused: `b'x-api-key: KEY\x01'`.
_KEY_HEADER = re.compile(r"(x-(?:goog-)?api-key\s*:\s*)[^\s\"',\\]+", re.IGNORECASE)
# Google's clients may put the key in the URL (`?key=...`), which a logged request line quotes.
_KEY_QUERY = re.compile(r"([?&]key=)[^\s&#\"']+", re.IGNORECASE)
_FORMATTER = logging.Formatter()


class RedactSecrets(logging.Filter):
    """Blanks API keys out of every log record: its message, exception and stack text."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def redact(self, text: str) -> str:
        clean = _BEARER.sub(r"\1***", _KEY_FIELD.sub(r"\1***\2", text))
        clean = _KEY_HEADER.sub(r"\1***", clean)
        clean = _KEY_QUERY.sub(r"\1***", clean)
        for secret in self.secrets:
            clean = clean.replace(secret, "***")
        return clean

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        clean = self.redact(text)
        if clean != text:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            # Formatted once here, as every handler would; then only the redacted text is left.
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        record.exc_info = None
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


REDACTOR = RedactSecrets()


def redact_logs(handlers: list[logging.Handler] | None = None, secret: str | None = None) -> None:
    """Install the redacting filter (once) on these handlers, or on every handler there is
    (the root logger's and any other logger's), and remember a known secret."""
    if secret:
        REDACTOR.secrets.add(secret)
    if handlers is None:
        handlers = list(logging.getLogger().handlers)
        for logger in list(logging.Logger.manager.loggerDict.values()):
            if isinstance(logger, logging.Logger):
                handlers.extend(logger.handlers)
        if logging.lastResort is not None:
            handlers.append(logging.lastResort)
    for handler in handlers:
        if REDACTOR not in handler.filters:
            handler.addFilter(REDACTOR)
