"""An agent's conversation as dialect-free items, sized for the history sweep.

An item is one thing a client sends: a user text, an assistant text, a tool call or a tool
result (one input item of the Responses API, one content block or part elsewhere). The shape
repeats what a coding agent's session holds: the user asks, the model says what it does and
calls a tool, the tool answers, and so on. Every conversation ends with the user text "1":
`sim-bench` streams as many parts as the first number in the last user text, so no other
text may hold a digit.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

Kind = Literal["user", "assistant", "call", "result"]
# One cycle of an agent session; a conversation is a prefix of these, then the user's "1".
CYCLE: tuple[Kind, ...] = ("user", "assistant", "call", "result")
LAST_TEXT = "1"
# Four-letter words and a space: the simulated tokenizer counts one token per 5 bytes.
_WORDS = (
    *("list", "read", "file", "code", "test", "open", "line", "path", "edit", "done", "fail"),
    *("pass", "diff", "from", "into", "with", "make", "bind", "step", "kind", "type", "name"),
    *("data", "user", "tool", "call", "node", "help", "more", "next", "last", "this"),
)


def words(count: int, start: int = 0) -> str:
    """`count` four-letter words separated by spaces (one token per 5 bytes, no digits)."""
    cycle = itertools.islice(itertools.cycle(_WORDS), start % len(_WORDS), None)
    return " ".join(itertools.islice(cycle, count))


def columns(size: int, start: int = 0) -> str:
    """About `size` bytes of column-aligned output (like `ls -l` or a table): each word
    padded to 10 characters, 8 to a line. One token per ~10 bytes, so a 1 MB body stays
    under the model's 128,000-token window, which four-letter words and one space do not."""
    cells = [word.ljust(10) for word in words(max(1, size // 10), start).split()]
    lines = ["".join(cells[i : i + 8]).rstrip() for i in range(0, len(cells), 8)]
    text = "\n".join(lines)
    return text + " " * max(0, size - len(text))


@dataclass(frozen=True)
class Item:
    kind: Kind
    text: str  # the message text, the command of a call, or a tool's output
    call: int = 0  # the number of the tool call (its id in every dialect is made from it)


def history(
    items: int, words_per_text: int = 9, words_per_command: int = 3, last: str = LAST_TEXT
) -> list[Item]:
    """`items` small items (~125 bytes each as Responses input), the last the user's `last`."""
    made: list[Item] = []
    for index in range(items - 1):
        kind = CYCLE[index % len(CYCLE)]
        if kind == "call" and index == items - 2:
            kind = "assistant"  # a call must be followed by its result
        size = words_per_command if kind == "call" else words_per_text
        made.append(Item(kind, words(size, index), call=index // len(CYCLE)))
    return [*made, Item("user", last)]


def bulky(total_bytes: int, cycles: int = 4, last: str = LAST_TEXT) -> list[Item]:
    """A few items (`cycles` x 4 + 1) holding about `total_bytes` of text, most of it in
    the tool results (files read, command output), as when an agent reads large files."""
    made: list[Item] = []
    # What the rest of the body takes (system prompt, tools, small items), and JSON's escape
    # of each line's newline (one more byte in ~81): the body comes out near `total_bytes`.
    bulk = max(0, total_bytes - 1_700 - cycles * 250) * 81 // 82 // cycles
    for cycle in range(cycles):
        made += [
            Item("user", words(9, cycle)),
            Item("assistant", words(9, cycle + 3)),
            Item("call", words(3, cycle + 5), call=cycle),
            Item("result", columns(bulk, cycle), call=cycle),
        ]
    return [*made, Item("user", last)]
