"""The placeholder a captured client's own text becomes in a fixture: its size, never its words.

Shared by the request trimmers of the clients whose texts are kept out of the fixtures
(gemini_trim.py, aider_trim.py): `[<client> text, N characters, not reproduced]`. A
placeholder is shorter than LONG_TEXT, so trimming a trimmed fixture again changes nothing.
"""

from __future__ import annotations

import re

LONG_TEXT = 200  # longer strings in a body are the client's prose, not facts


class Placeholders:
    """The placeholders of one client (`client`: its name as the placeholder says it)."""

    def __init__(self, client: str) -> None:
        self.client = client
        self._pattern = re.compile(rf"\[{re.escape(client)} text, \d+ characters, not reproduced\]")

    def placeholder(self, text: str) -> str:
        return f"[{self.client} text, {len(text)} characters, not reproduced]"

    def is_placeholder(self, text: str) -> bool:
        return self._pattern.fullmatch(text) is not None

    def trim_text(self, text: str) -> str:
        """`text`, or its placeholder when it is longer than LONG_TEXT."""
        too_long = len(text) > LONG_TEXT and not self.is_placeholder(text)
        return self.placeholder(text) if too_long else text
