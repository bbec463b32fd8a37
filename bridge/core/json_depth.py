"""How deep a JSON text nests, read from its bytes at C speed: the request limits' depth check
for a fast path whose Structs skip unknown keys (bridge/core/typed_body.py): msgspec skips them
unread, so only the bytes can say how deep they nest (Anthropic's and Responses' fast paths;
Chat's and Gemini's refuse unknown keys and check their free-form fields instead).

The general way makes a few passes over the body with `bytes` methods and none in Python per
value: drop escaped backslashes and quotes, keep only quotes and brackets, drop what is inside
strings, then peel off the innermost pairs of brackets, one level at a time. A body of a few
long strings (files, command output) goes faster another way: `find` jumps from quote to quote
(memchr), so only what lies between strings is looked at.
"""

from __future__ import annotations

import re

_ESCAPED_SLASH_OR_QUOTE = re.compile(rb'\\[\\"]')
# bytes.translate tables: keep only quotes and brackets; then both kinds of bracket as one.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
# The walk from quote to quote pays when strings are long: it gives up once it has passed
# more than a few strings plus one per this many bytes (a history of short items then takes
# the general way, having lost little).
_FIRST_STRINGS = 64
_BYTES_PER_WALKED_STRING = 2048
_BACKSLASH = ord("\\")
_LOOKBEHIND = 32  # backslashes before a quote, checked at once; a longer run: the general way
# Below this the general way takes a few µs, less than the walk's first strings.
_WALK_FROM_BYTES = 16 * 1024


def within_depth(raw: bytes, limit: int) -> bool:
    """Whether valid JSON text `raw` nests arrays and objects at most `limit` deep, counted as
    `check_request_shape` counts (the whole value is level 1)."""
    outside = _outside_long_strings(raw) if len(raw) >= _WALK_FROM_BYTES else None
    brackets = (_outside_strings(raw) if outside is None else outside).translate(
        _AS_PARENS, _NOT_STRUCTURE
    )
    for _ in range(limit):
        if not brackets:
            return True
        brackets = brackets.replace(b"()", b"")
    return not brackets


def _outside_strings(raw: bytes) -> bytes:
    """The quotes and brackets of `raw` that are not inside a string."""
    if b"\\" in raw:
        # Escapes read left to right, as JSON does: an escaped backslash or quote goes; the
        # other escapes hold neither.
        raw = _ESCAPED_SLASH_OR_QUOTE.sub(b"", raw)
    # Two quotes with nothing kept between them: the inside of a string without brackets, or
    # the outside between two strings, which holds none either; dropping them keeps the
    # parity of every other quote.
    kept = raw.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in kept:
        kept = b"".join(kept.split(b'"')[::2])  # the odd pieces are inside strings
    return kept


def _outside_long_strings(raw: bytes) -> bytes | None:
    """What lies between the strings of `raw`, found quote by quote; None when the strings are
    too many for that to pay (or a quote follows a long run of backslashes)."""
    pieces: list[bytes] = []
    find = raw.find
    start = walked = 0
    while (opening := find(b'"', start)) >= 0:
        walked += 1
        if walked > _FIRST_STRINGS + opening // _BYTES_PER_WALKED_STRING:
            return None
        pieces.append(raw[start:opening])
        closing = find(b'"', opening + 1)
        # Escaped only after a backslash: then the next quote not escaped (an even run of
        # backslashes before it). Most strings end at their first quote, one byte checked.
        while closing > 0 and raw[closing - 1] == _BACKSLASH:
            before = raw[max(opening + 1, closing - _LOOKBEHIND) : closing]
            run = len(before) - len(before.rstrip(b"\\"))
            if run == _LOOKBEHIND:
                return None
            if run % 2 == 0:
                break
            closing = find(b'"', closing + 1)
        if closing < 0:
            return None  # not JSON: the general way answers for it
        start = closing + 1
    pieces.append(raw[start:])
    return b"".join(pieces)
