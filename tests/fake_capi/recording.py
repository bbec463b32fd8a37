"""What a FAKE of GitHub Copilot's cloud API (CAPI) received, for test assertions.

The real cloud cannot be reached here, so tests run Copilot against this FAKE and check what
Copilot sent it: every request's method, path, headers (Authorization, Copilot-Integration-Id,
X-Initiator, x-onbehalf-extension-id...) and parsed JSON body, kept in a thread-safe list (the
fake serves from a thread of its own while the test reads from another).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any  # the parsed JSON body; None when there was none or it was not JSON
    raw: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


class Recorder:
    """A thread-safe list of the requests received, oldest first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Recorded] = []

    def add(self, item: Recorded) -> None:
        with self._lock:
            self._items.append(item)

    def all(self) -> list[Recorded]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
