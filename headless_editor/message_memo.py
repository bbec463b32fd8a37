"""Work the simulated model repeats for every message of every request, done once per message.

An agent resends its whole history each turn, and what the simulated model derives from one
message (how Copilot renders it, its tokens, its prompt-cache units) depends on that message
alone. So it is kept, keyed by the message's JSON encoding (made in C, a fraction of a
microsecond for a small message), and a request costs one encoding pass plus the work for
what is new in it, instead of tokenizing its whole history again in Python.

Bounded: the least recently used entries go first once their keys pass `max_bytes` (a value is
a few times its key's size at most: the key is the message itself).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import msgspec

T = TypeVar("T")

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
_encode = msgspec.json.Encoder().encode


class MessageMemo(Generic[T]):
    """`make(value)`, remembered for values that encode to the same JSON."""

    def __init__(self, make: Callable[[Any], T], max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self._make = make
        self._max_bytes = max_bytes
        self._entries: OrderedDict[bytes, T] = OrderedDict()
        self._bytes = 0

    def __call__(self, value: Any) -> T:
        key = _encode(value)
        try:
            found = self._entries[key]
        except KeyError:
            pass
        else:
            self._entries.move_to_end(key)
            return found
        made = self._make(value)
        if len(key) <= self._max_bytes:
            self._entries[key] = made
            self._bytes += len(key)
            while self._bytes > self._max_bytes:
                old, _ = self._entries.popitem(last=False)
                self._bytes -= len(old)
        return made

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes
