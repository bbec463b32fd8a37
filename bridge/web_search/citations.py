"""The model's `[n]` marks in its answer: which search result each one cites, and where.

The results the model read are numbered across the answer's searches (events.py); a mark
names one by number. Every dialect reports citations from these spans: Anthropic's
`citations` on the text block, OpenAI's `url_citation` annotations, Gemini's
`groundingSupports`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridge.web_search.results import SearchResult

_MARK = re.compile(r"\[(\d{1,3})\]")


@dataclass(frozen=True)
class Citation:
    result: SearchResult
    number: int  # 1-based, across the answer's results
    start: int  # the cited sentence, in characters of the text (mark included)
    end: int
    cited_text: str


def citations(text: str, results: list[SearchResult]) -> list[Citation]:
    """Each `[n]` of `text` naming one of `results` (numbered from 1), with the sentence
    it closes: from the end of the previous sentence (or mark) to the end of the mark."""
    found: list[Citation] = []
    start = 0
    for match in _MARK.finditer(text):
        number = int(match.group(1))
        if not 1 <= number <= len(results):
            continue
        head = text[start : match.start()].rstrip()
        cut = max(head.rfind(end) for end in ".!?\n")
        begin = start + cut + 1 if cut >= 0 else start
        while begin < match.start() and text[begin].isspace():
            begin += 1
        cited = text[begin : match.start()].strip() or results[number - 1].title
        found.append(Citation(results[number - 1], number, begin, match.end(), cited[:500]))
        start = match.end()
    return found
