"""What a Messages request becomes before the editor is asked: the plan both sides share.

The request side builds it with `plan_messages` from the body's wire Structs (wire.py), which
the fast path decodes (body.py) or `parse_messages_request` makes on the exact path; the
answer side (events, stream, routes) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge.anthropic.convert import converted
from bridge.anthropic.from_model import from_model
from bridge.anthropic.options import (
    log_ignored,
    model_options,
    thinking_omitted,
    thinking_shown,
)
from bridge.anthropic.output_format import requested_format
from bridge.anthropic.protocol import MessagesRequest
from bridge.anthropic.tools import plan_tools
from bridge.anthropic.wire import MessagesBody
from bridge.core.backend import ChatRequest, ModelInfo
from bridge.core.chat_request import editor_chat
from bridge.core.errors import invalid_request
from bridge.core.history import normalise_tool_history
from bridge.core.structured_output import OutputFormat
from bridge.core.validation_errors import json_object, validated

JUSTIFICATION = "A Messages API client (such as Claude Code) asked Maestro Bridge for this answer."


@dataclass
class MessagesPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for, echoed in the answer's `model`
    stream: bool
    stop_sequences: list[str] = field(default_factory=list)  # cut by the bridge
    thinking: bool = False  # thinking parts become `thinking` blocks (else they are dropped)
    # `thinking.display: "omitted"` (Claude Code): the blocks come with empty `thinking` text.
    thinking_omitted: bool = False
    # JSON the client asked for (`output_config.format`); `checked_format` adds its checker.
    output_format: OutputFormat | None = None


def parse_messages_request(body: Any) -> MessagesBody:
    """The exact path: validate a decoded JSON body; raises ApiError (400) naming the
    offending param."""
    body = json_object(body, ("model", "messages", "max_tokens"))
    request = from_model(validated(body, MessagesRequest), body)
    log_ignored(request)
    return request


def plan_messages(request: MessagesBody, model: ModelInfo) -> MessagesPlan:
    """Everything decided before the editor is asked (pure; raises ApiError 400 on bad input)."""
    history, loaded = converted(request)
    tools = plan_tools(request.tools, request.tool_choice, loaded)
    fmt = requested_format(request)
    messages = normalise_tool_history(history)
    if not messages:
        raise invalid_request(
            "The messages hold nothing the model can read.",
            param="messages",
            code="invalid_value",
        )
    chat = editor_chat(
        model, messages, tools.tools, tools.mode, model_options(request), fmt, JUSTIFICATION
    )
    chat.webSearch = tools.search
    return MessagesPlan(
        chat=chat,
        model=request.model,
        stream=bool(request.stream),
        stop_sequences=list(request.stop_sequences or []),
        thinking=thinking_shown(request),
        thinking_omitted=thinking_omitted(request),
        output_format=fmt,
    )
