"""The control markers of a FAKE of GitHub Copilot's cloud (CAPI): text in the prompt that
makes the FAKE fail or cut its answer as the real cloud sometimes does (the real cloud cannot
be reached here, and would not fail on demand).

Matched in the last input item's text (the last message's text, or the last tool result's),
never in a system prompt:
`[capi 400]`, `[capi 400 blank]`, `[capi 402]`, `[capi 429 N]`, `[capi context]`,
`[capi filter]`, `[capi length N]`, `[capi midstream]` (an error event in the stream) and
`[capi midstream drop]` (the connection dropped mid-stream).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MARKER = re.compile(
    r"\[capi (400 blank|400|402|429 \d+|context|filter|length \d+|midstream drop|midstream)\]"
)


@dataclass(frozen=True)
class Markers:
    refuse: str | None = None  # "400", "400 blank", "402", "429", "context"
    retry_after: int = 0
    filter: bool = False
    length: int | None = None
    midstream: str | None = None  # "event" or "drop"


def markers_in(text: str) -> Markers:
    refuse: str | None = None
    retry_after = 0
    filtered = False
    length: int | None = None
    midstream: str | None = None
    for found in _MARKER.finditer(text):
        word = found.group(1)
        if word.startswith("429"):
            refuse, retry_after = "429", int(word.split()[1])
        elif word.startswith("length"):
            length = int(word.split()[1])
        elif word == "filter":
            filtered = True
        elif word.startswith("midstream"):
            midstream = "drop" if word.endswith("drop") else "event"
        else:
            refuse = word
    return Markers(refuse, retry_after, filtered, length, midstream)
