"""JSON in and out of the bridge, strictly: only what RFC 8259 calls JSON passes either way.

Python's json module accepts and writes `NaN`, `Infinity` and `-Infinity`, which no other JSON
parser reads (vscode-jsonrpc fails on them and VS Code then stops the language server), and it
decodes `\\ud800` escapes into lone surrogates, which cannot be encoded as UTF-8 and so fail
wherever the text is next written out. Requests are checked here, once, where they are decoded;
every encoder the bridge writes with refuses non-finite numbers whatever their source.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# One encoder for everything the bridge sends (HTTP bodies, SSE, WebSocket frames, JSON-RPC):
# compact, UTF-8 as is, and a ValueError rather than a bare `NaN` in the output.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
encode = _ENCODER.encode


def dumps(value: Any) -> str:
    """`json.dumps` for `web.json_response(dumps=...)`: raises ValueError on NaN/Infinity."""
    return encode(value)


class JsonInputError(ValueError):
    """A body that is not JSON the bridge can take; `param` is where, when it is known."""

    def __init__(self, message: str, *, param: str | None = None, code: str = "invalid_json"):
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


class _NotJson:
    """What a `NaN`/`Infinity` token decodes to: a marker the check below then looks for."""

    def __init__(self, token: str) -> None:
        self.token = token


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # paired escapes decode to one code point
# Any `\uD800`-`\uDFFF` escape, paired or not (or even an escaped backslash before it): only
# then is the decoded value checked. A literal prefix: regex scans for it at memchr speed.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def decode(raw: bytes | str) -> Any:
    """Decode a request body or frame; raises JsonInputError (never anything else but
    RecursionError, which callers already turn into a 400).

    The checks cost next to nothing on ordinary bodies: the hooks run only on float literals
    and on `NaN`/`Infinity` tokens (which stop the decode: the text is then decoded again to
    name where), and the surrogate check only when the text holds a `\\ud...` escape at all
    (Python clients escape emoji that way; then one extra encode).
    """
    if isinstance(raw, bytes | bytearray):
        try:  # strict: json.loads would let UTF-8-encoded surrogates through ('surrogatepass')
            text = bytes(raw).decode(json.detect_encoding(raw))
        except UnicodeDecodeError as exc:
            raise JsonInputError(f"The request body is not valid UTF-8: {exc}.") from None
    else:
        text = raw
    try:
        value = _DECODER.decode(text)
    except _NotFinite:  # decoded again, marking every such value, to name where the first is
        _raise_first_bad(_decode_marking(text))
        raise JsonInputError("The request body holds a number that is not finite.") from None
    except ValueError as exc:  # JSONDecodeError, and integers past Python's 4300 digits
        raise JsonInputError(f"The request body is not valid JSON: {exc}.") from None
    if _SURROGATE_ESCAPE.search(text) and not _encodable(value):
        _raise_first_bad(value)
    return value


class _NotFinite(Exception):
    """A `NaN`/`Infinity` token or a number too large for a float: the fast decode stops."""


def _refuse_constant(token: str) -> Any:
    raise _NotFinite


def _finite_float(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise _NotFinite
    return value


# One decoder for every body and every tool call's arguments (a long history has thousands):
# building one per call, for hooks that remember what they saw, cost more than decoding.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def _decode_marking(text: str) -> Any:
    """`text` decoded with each NaN/Infinity token as a marker, for _raise_first_bad."""
    decoder = json.JSONDecoder(parse_constant=_NotJson)
    try:
        return decoder.decode(text)
    except ValueError as exc:
        raise JsonInputError(f"The request body is not valid JSON: {exc}.") from None


def _encodable(value: Any) -> bool:
    try:
        encode(value).encode()
    except UnicodeEncodeError:
        return False
    return True


def _printable(key: str) -> str:
    """A key as it may appear in an error message (which must itself be encodable)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def _raise_first_bad(value: Any) -> None:
    """Find the first value (or key) JSON cannot carry and raise naming its path."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, current = stack.pop()
        if isinstance(current, _NotJson):
            raise JsonInputError(
                f"The request body is not valid JSON: `{current.token}` is not a JSON value"
                f"{f' (at `{path}`)' if path else ''}; numbers must be finite.",
                param=path or None,
            )
        if isinstance(current, float) and not math.isfinite(current):
            raise JsonInputError(
                f"Invalid value for `{path}`: the number is too large (numbers must be finite)."
                if path
                else "The number is too large: numbers must be finite.",
                param=path or None,
                code="invalid_value",
            )
        if isinstance(current, str) and _LONE_SURROGATE.search(current):
            raise JsonInputError(
                "The request body holds a lone UTF-16 surrogate (a `\\ud800`-`\\udfff` escape "
                f"without its pair){f' at `{path}`' if path else ''}: it is not text.",
                param=path or None,
                code="invalid_value",
            )
        if isinstance(current, dict):
            children = []
            for key, child in current.items():
                name = _printable(key)
                child_path = f"{path}.{name}" if path else name
                if _LONE_SURROGATE.search(key):
                    children.append((child_path, key))
                children.append((child_path, child))
            stack.extend(reversed(children))
        elif isinstance(current, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(current))))
