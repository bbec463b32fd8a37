"""What one search gives: results bounded in count and size, their text free of HTML.

Search results are untrusted input: a title or snippet is whatever a web page said. They are
reduced to plain text (tags dropped, entities decoded, whitespace folded), cut to a bound,
and only http(s) URLs are kept. The bridge reports result URLs and never fetches them.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

MAX_TITLE_CHARS = 300
MAX_SNIPPET_CHARS = 1500
MAX_URL_CHARS = 2048
MAX_QUERY_CHARS = 400  # longer: Anthropic's `query_too_long`

# Anthropic's `web_search_tool_result_error` codes, which every dialect's error maps from.
INVALID_INPUT = "invalid_tool_input"
UNAVAILABLE = "unavailable"
MAX_USES_EXCEEDED = "max_uses_exceeded"
TOO_MANY_REQUESTS = "too_many_requests"
QUERY_TOO_LONG = "query_too_long"


class SearchFailed(Exception):
    """The search could not be made; `code` is one of the error codes above."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str = ""
    page_age: str | None = None


@dataclass
class SearchOutcome:
    """A search the model asked for: its results, or the error code it ended with."""

    call_id: str
    query: str
    results: list[SearchResult] = field(default_factory=list)
    error: str | None = None


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chunks: list[str] = []
        self._skip = 0  # inside <script> or <style>

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.chunks.append(data)


_SPACE = re.compile(r"\s+")


def plain_text(value: object, limit: int) -> str:
    """`value` as plain text of at most `limit` characters (HTML reduced to its text)."""
    if not isinstance(value, str):
        return ""
    text = value[: limit * 4]  # enough for the text of markup-heavy input, bounded
    if "<" in text or "&" in text:
        parser = _TextOnly()
        parser.feed(text)
        parser.close()
        text = html.unescape("".join(parser.chunks))
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def web_url(value: object) -> str | None:
    """An absolute http(s) URL of bounded length, else None."""
    if not isinstance(value, str) or len(value) > MAX_URL_CHARS:
        return None
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    return value.strip()


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def in_domains(url: str, domains: list[str]) -> bool:
    """Whether the URL's host is one of `domains` or under one (`example.com` takes
    `docs.example.com`); a domain may carry a path (`example.com/blog`)."""
    host = host_of(url)
    path = urlsplit(url).path or "/"
    for domain in domains:
        name, _, prefix = (
            domain.strip().lower().removeprefix("https://").removeprefix("http://").partition("/")
        )
        name = name.rstrip(".")
        on_host = bool(name) and (host == name or host.endswith("." + name))
        if on_host and (not prefix or path.lstrip("/").startswith(prefix.rstrip("/"))):
            return True
    return False


def result_of(title: object, url: object, snippet: object, page_age: object) -> SearchResult | None:
    """One result from a backend's fields, or None when its URL is not a web URL."""
    address = web_url(url)
    if address is None:
        return None
    name = plain_text(title, MAX_TITLE_CHARS) or address
    age = plain_text(page_age, 100) or None
    return SearchResult(name, address, plain_text(snippet, MAX_SNIPPET_CHARS), age)


def filtered(
    results: list[SearchResult | None],
    allowed: list[str],
    blocked: list[str],
    limit: int,
) -> list[SearchResult]:
    """The results within the domain filters, each URL once, at most `limit`."""
    kept: list[SearchResult] = []
    seen: set[str] = set()
    for result in results:
        if result is None or result.url in seen:
            continue
        if allowed and not in_domains(result.url, allowed):
            continue
        if blocked and in_domains(result.url, blocked):
            continue
        seen.add(result.url)
        kept.append(result)
        if len(kept) >= limit:
            break
    return kept
