"""A `maestro/chat` request's params as JSON bytes, in one call of one encoder.

A long conversation is most of what the bridge sends: 4,000 messages of history on every turn
of an agent session. The parts and messages are msgspec Structs whose encoding is their wire
shape (bridge/core/backend.py, docs/protocol.md), so msgspec writes the whole request in one
pass in C: ~1 ms for 0.5 MB, where building dicts in Python first cost ~15 ms.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
from msgspec.structs import astuple

from bridge.core.backend import ChatRequest
from bridge.core.parts import tool_json
from bridge.core.strict_json import encode as strict_encode
from lsp.rpc import UnsendableMessage

_ENCODER = msgspec.json.Encoder()
# A walk of the chat's values costs ~0.3 µs a value and the scan for `null` ~0.7 ns a byte:
# the walk is tried while it stays under a few percent of the scan's cost.
_BYTES_PER_WALKED_VALUE = 11


def chat_params_json(
    chat_id: str, window: int, request: ChatRequest, *, count_input: bool = True
) -> bytes:
    """`{"chatId", "window", ...request}`, as `request.model_dump(exclude_none=True)` would
    give it (`countInput` only when the editor counts: `count_input`); UnsendableMessage for
    what JSON cannot carry (NaN, Infinity, a lone surrogate)."""
    params: dict[str, Any] = {
        "chatId": chat_id,
        "window": window,
        "model": request.model,
        "messages": request.messages,
        "tools": [tool_json(tool) for tool in request.tools],
        "toolMode": request.toolMode,
        "modelOptions": request.modelOptions,
        "modelConfiguration": request.modelConfiguration,
    }
    if request.justification is not None:
        params["justification"] = request.justification
    if request.countInput is not None and count_input:
        params["countInput"] = request.countInput
    data = _encoded(params)
    # msgspec writes a non-finite number as `null`, so only output holding a null can hide
    # one. A few long messages are walked at once (~0.03 ms for 0.5 MB in 17 items, where
    # scanning the bytes costs 0.33 ms); thousands would cost far more than the scan, which
    # decides for most requests: then only output holding a null is walked.
    budget = len(data) >> _BYTES_PER_WALKED_VALUE
    finite = _finite(params, budget) if len(request.messages) < budget else None
    if finite is None:
        finite = b"null" not in data or _all_finite(params)
    if not finite:
        raise UnsendableMessage("the message is not valid JSON (a number is not finite)")
    return data


def params_json(params: Any) -> bytes:
    """The editor's other requests' params (a few values, but maybe a 0.5 MB text to count) as
    compact UTF-8 JSON; UnsendableMessage where `lsp.rpc` refuses (a lone surrogate, a number
    that is not finite: msgspec would write it as `null`, so the values are walked)."""
    data = _encoded(params)
    if not _all_finite(params):
        raise UnsendableMessage("the message is not valid JSON (a number is not finite)")
    return data


def _encoded(params: Any) -> bytes:
    try:
        return _ENCODER.encode(params)
    except UnicodeEncodeError as exc:  # a lone surrogate: not UTF-8
        raise UnsendableMessage(f"the message is not valid JSON ({exc})") from None
    except (TypeError, OverflowError, ValueError):  # what msgspec cannot write: the strict way
        return _strict(msgspec.to_builtins(params, str_keys=True))


def _strict(value: Any) -> bytes:
    try:
        return strict_encode(value).encode()
    except (ValueError, UnicodeEncodeError) as exc:
        raise UnsendableMessage(f"the message is not valid JSON ({exc})") from None


def _all_finite(value: Any) -> bool:
    """No NaN or Infinity anywhere in `value`."""
    return _finite(value, -1) is True


def _finite(value: Any, budget: int) -> bool | None:
    """Whether `value` holds no NaN or Infinity, or None once more than `budget` values were
    looked at (a negative budget: no limit). Iterative: no recursion limit to reach."""
    pending = [value]
    pop, extend = pending.pop, pending.extend
    while pending:
        budget -= 1
        if budget == -1:
            return None
        node = pop()
        kind = type(node)
        if kind is str:  # most values: checked first
            continue
        if kind is float:
            if not math.isfinite(node):
                return False
        elif isinstance(node, dict):
            extend(node.values())
        elif isinstance(node, list | tuple):
            extend(node)
        elif isinstance(node, msgspec.Struct):
            extend(astuple(node))
    return True
