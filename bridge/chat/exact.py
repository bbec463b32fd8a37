"""The exact path: a decoded JSON body validated by protocol.py's pydantic models, as today.

It phrases every 400 (naming the offending param); what it accepts it hands over as wire.py's
Structs, so that one conversion reads both paths' results.
"""

from __future__ import annotations

from typing import Any, cast

import msgspec

from bridge.chat import protocol, wire
from bridge.chat.options import log_ignored
from bridge.core.errors import invalid_request
from bridge.core.validation_errors import json_object, validated


def parse_completion_request(body: Any) -> wire.CompletionRequest:
    """Validate a decoded JSON body; raises ApiError (400) naming the offending param."""
    body = json_object(body, ("model", "messages"))
    check_roles(body["messages"])
    request = validated(body, protocol.CompletionRequest)
    log_ignored(body)
    return from_validated(request)


def check_roles(messages: Any) -> None:
    """400 naming `messages[i].role` when a message has no role the dialect knows."""
    if not isinstance(messages, list):
        return  # the model's validation names it
    for index, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") not in protocol.ROLES:
            raise invalid_request(
                f"Invalid value for `messages[{index}].role`: expected one of "
                f"{', '.join(protocol.ROLES)}.",
                param=f"messages[{index}].role",
                code="invalid_value",
            )


def from_validated(request: protocol.CompletionRequest) -> wire.CompletionRequest:
    """The pydantic result as Structs, with the same values."""
    if not any(_has_other_part(message) for message in request.messages):
        return wire.TYPED.from_validated(request)
    # A part of a type the fast path never decodes (kept as OtherContent) fits no Struct
    # union: each message is converted on its own, such parts by hand.
    placeholder = protocol.UserMessage(role="user", content="")
    typed = wire.TYPED.from_validated(request.model_copy(update={"messages": [placeholder]}))
    typed.messages = [_typed_message(message) for message in request.messages]
    return typed


def _has_other_part(message: Any) -> bool:
    content = getattr(message, "content", None)
    return isinstance(content, list) and any(
        isinstance(part, protocol.OtherContent) for part in content
    )


def _typed_message(message: Any) -> wire.Message:
    if not _has_other_part(message):
        return cast(wire.Message, _converted(message, wire.Message))
    typed = _converted(message.model_copy(update={"content": ""}), wire.Message)
    typed.content = [
        wire.OtherContent(type=part.type)
        if isinstance(part, protocol.OtherContent)
        else _converted(part, wire.ContentPart)
        for part in message.content
    ]
    return cast(wire.Message, typed)


def _converted(value: Any, target: Any) -> Any:
    return msgspec.convert(value, target, from_attributes=True, strict=False)
