"""A request body read in one compiled pass, straight into the types a dialect converts.

A coding agent resends its whole history on every turn: thousands of items. Decoding them
into dicts, walking them for limits, validating them into pydantic models and converting
those cost the bridge ~100 ms a request at 4,000 items (docs/benchmarks.md). msgspec decodes
the bytes into `msgspec.Struct`s in one pass in C (~2 ms for 0.5 MB): that is the fast path.

It only ever accepts: any body it cannot read as certainly well-formed (not JSON, a wrong
type, a value pydantic would coerce, a body that may exceed a limit) goes to the dialect's
exact path, today's `read_json` + `check_request_shape` + pydantic validation, which answers
the same 400 it always did or, for what it accepts, hands its result back as the same types
(`from_validated`). Both paths end in one conversion.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec

from bridge.core.limits import Limits
from bridge.core.request_limits import json_depth_exceeded

T = TypeVar("T")


class TypedBody(Generic[T]):
    """`decode` a dialect's body as `body_type`, or None when the exact path must decide."""

    def __init__(self, body_type: type[T]) -> None:
        self.body_type = body_type
        self._decoder = msgspec.json.Decoder(body_type)

    def decode(self, raw: bytes, limits: Limits) -> T | None:
        if len(raw) > 2 * limits.maxJsonValues and most_values(raw) > limits.maxJsonValues:
            return None  # it may hold more values than allowed: the exact path counts them
        # msgspec skips a field it does not know unread: only a UTF-8 check of the whole body
        # keeps bytes that are no text (today's 400) off the fast path (ASCII: a flag's cost).
        if not raw.isascii():
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return None
        try:
            return self._decoder.decode(raw)
        # DecodeError (ValidationError included): not JSON or not this shape; invalid UTF-8
        # surfaces as UnicodeDecodeError; nesting past msgspec's own bound as RecursionError.
        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
            return None

    def from_validated(self, validated: Any) -> T:
        """The exact path's pydantic result as the fast path's types (they share field names):
        what pydantic coerced (a number sent as a string...) is read back as its value."""
        return msgspec.convert(validated, self.body_type, from_attributes=True, strict=False)


def most_values(raw: bytes) -> int:
    """At least as many as the JSON values in `raw`: each value but the first follows a `[`,
    a `,` or a `:` (these in strings count too: an upper bound, in C at memchr speed). A value
    takes two bytes with its separator, so a body under twice the limit needs no count."""
    if len(raw) <= 1:
        return len(raw)
    return 1 + raw.count(b"[") + raw.count(b",") + raw.count(b":")


def within_depth(value: Any, limits: Limits, above: int) -> bool:
    """True when a free-form value (a schema, tool arguments) that sits `above` levels deep in
    the body stays within `limits.maxJsonDepth`; the exact path names it otherwise."""
    return not json_depth_exceeded(value, limits.maxJsonDepth - above)
