"""The fast path: a Messages body decoded straight into wire.py's Structs, when that is certain
to give what the exact path (read_json + check_request_shape + pydantic) would.

The decoder is stricter than pydantic (no coercion: a number sent as a string fails it) and
reads only valid JSON without NaN or lone surrogates, as the exact path does. What it cannot
see are the request limits: the depth of keys it skips, the count of values, of messages and
of tools. Those are checked here on the raw bytes and the decoded Structs; at any doubt the
answer is None and the exact path decides (and names the field in its 400 as always).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from bridge.anthropic.options import log_ignored
from bridge.anthropic.wire import MessagesBody
from bridge.core.json_depth import within_depth
from bridge.core.limits import Limits
from bridge.core.typed_body import TypedBody

TYPED = TypedBody(MessagesBody)


@dataclass
class PathCounts:
    """How many bodies each path read (tests check that ordinary ones take the fast path)."""

    fast: int = 0
    exact: int = 0


PATHS = PathCounts()

# Counted as Gemini function declarations by the request limits.
_DECLARATIONS = ("functionDeclarations", "function_declarations")


def _many_tools(tools: list[Any] | None, limits: Limits) -> bool:
    if tools is None:
        return False
    return len(tools) > limits.maxTools or any(
        isinstance(tool, dict) and any(key in tool for key in _DECLARATIONS) for tool in tools
    )


def fast_body(raw: bytes, limits: Limits, *, counting: bool = False) -> MessagesBody | None:
    """The body as wire Structs, or None when the exact path must read it. A count
    (`counting`) takes any `max_tokens` and `stream`: they are set to 1 and false."""
    body = TYPED.decode(raw, limits)
    if (
        body is None
        or (body.max_tokens is None and not counting)
        or len(body.messages) > limits.maxInputItems
        or _many_tools(body.tools, limits)
        or body.foreign_input is not None
        or not within_depth(raw, limits.maxJsonDepth)
    ):
        PATHS.exact += 1
        return None
    PATHS.fast += 1
    log_ignored(body)
    return msgspec.structs.replace(body, max_tokens=1, stream=False) if counting else body
