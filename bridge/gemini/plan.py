"""What a Gemini request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it with `parse_generate_request` and
`plan_generate`; the answer side (chunks, stream, routes) reads it. Whether the answer streams is
decided by the route (`:generateContent` or `:streamGenerateContent`), not by the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge.core.backend import ChatRequest, ModelInfo
from bridge.core.chat_request import editor_chat
from bridge.core.structured_output import OutputFormat
from bridge.core.validation_errors import json_object
from bridge.gemini.convert import editor_messages
from bridge.gemini.fields import bad_field, field_of, validated
from bridge.gemini.options import include_thoughts, log_ignored, model_options, refuse_unsupported
from bridge.gemini.protocol import GenerateContentRequest as ValidatedRequest
from bridge.gemini.response_format import enum_instruction, requested_format
from bridge.gemini.stop import stop_sequences
from bridge.gemini.tools import plan_tools
from bridge.gemini.web_search import google_search_ask, offer_search
from bridge.gemini.wire import TYPED, GenerateContentRequest

JUSTIFICATION = "A Gemini API client (such as Gemini CLI) asked Maestro Bridge for this answer."


@dataclass
class GeminiPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for (from the path), echoed as `modelVersion`
    stream: bool
    stop_sequences: list[str] = field(default_factory=list)  # `stopSequences`: cut by the bridge
    # `thinkingConfig.includeThoughts`: thinking parts become `thought: true` parts (else dropped;
    # their tokens are still counted in `thoughtsTokenCount`).
    include_thoughts: bool = False
    # JSON the client asked for (`responseMimeType` + a schema); `checked_format` adds its checker.
    output_format: OutputFormat | None = None


def parse_generate_request(body: Any) -> GenerateContentRequest:
    """Validate a decoded JSON body (the exact path); raises ApiError (400) naming the offending
    field. What it accepts comes back as the fast path's Structs (wire.py)."""
    body = json_object(body)
    if field_of(body, "contents") is None:
        raise bad_field(
            "contents", "Missing required parameter: `contents`.", "missing_required_parameter"
        )
    request = validated(body, ValidatedRequest)
    log_ignored(body)
    return TYPED.from_validated(request)


def plan_generate(
    request: GenerateContentRequest, model_name: str, model: ModelInfo, stream: bool
) -> GeminiPlan:
    """Everything decided before the editor is asked (pure; raises ApiError 400 on bad input).

    `model_name` is the path's model, as the client wrote it (echoed as `modelVersion`)."""
    refuse_unsupported(request)
    config = request.generation_config
    tools = plan_tools(request.tools, request.tool_config)
    search = offer_search(tools.tools, google_search_ask(request.tools, request.tool_config))
    fmt = requested_format(config)
    stops = stop_sequences(config.stop_sequences if config is not None else None)
    messages = editor_messages(request.contents, request.system_instruction)
    if not request.contents or not any(message.role == "user" for message in messages):
        raise bad_field("contents", "The contents hold nothing the model can read.")
    # About this answer alone: after the history (bridge/core/turn_notes.py).
    notes = [enum_instruction(fmt.enum_values)] if fmt.enum_values else []
    chat = editor_chat(
        model,
        messages,
        tools.tools,
        tools.mode,
        model_options(request, stops),
        fmt.output,
        JUSTIFICATION,
        notes,
    )
    chat.webSearch = search
    return GeminiPlan(
        chat=chat,
        model=model_name,
        stream=stream,
        stop_sequences=stops,
        include_thoughts=include_thoughts(request),
        output_format=fmt.output,
    )
