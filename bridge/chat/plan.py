"""What a Chat Completions request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it with `parse_completion_request` and
`plan_completion`; the answer side (chunks, stream, routes) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.chat.convert import editor_messages
from bridge.chat.exact import check_roles, parse_completion_request
from bridge.chat.options import model_options, refuse_unsupported
from bridge.chat.response_format import requested_format
from bridge.chat.stop import stop_sequences
from bridge.chat.tools import plan_tools
from bridge.chat.web_search import offer_search
from bridge.chat.wire import CompletionRequest
from bridge.core.backend import ChatRequest, ModelInfo
from bridge.core.chat_request import editor_chat
from bridge.core.errors import invalid_request
from bridge.core.structured_output import OutputFormat

__all__ = ["CompletionPlan", "check_roles", "parse_completion_request", "plan_completion"]

JUSTIFICATION = "A Chat Completions client (such as Aider) asked Maestro Bridge for this answer."


@dataclass
class CompletionPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for, echoed in the answer's `model`
    stream: bool
    include_usage: bool = False  # `stream_options.include_usage`: a last chunk with usage
    stop_sequences: list[str] = field(default_factory=list)  # `stop`: cut by the bridge
    # `parallel_tool_calls: false`: the answer ends after its first tool call.
    parallel_tool_calls: bool = True
    # JSON the client asked for (`response_format`); `checked_format` adds its checker.
    output_format: OutputFormat | None = None


def plan_completion(request: CompletionRequest, model: ModelInfo) -> CompletionPlan:
    """Everything decided before the editor is asked (pure; raises ApiError 400 on bad input)."""
    refuse_unsupported(request)
    tools = plan_tools(request.tools, request.tool_choice)
    fmt = requested_format(request.response_format)
    stops = stop_sequences(request.stop)
    messages = editor_messages(request.messages)
    if not messages:
        raise invalid_request(
            "The messages hold nothing the model can read.",
            param="messages",
            code="invalid_value",
        )
    search = offer_search(tools.tools, request.web_search_options, request.tool_choice)
    chat = editor_chat(
        model, messages, tools.tools, tools.mode, model_options(request), fmt, JUSTIFICATION
    )
    chat.webSearch = search
    stream = bool(request.stream)
    options = request.stream_options
    return CompletionPlan(
        chat=chat,
        model=request.model,
        stream=stream,
        include_usage=stream and options is not None and options.include_usage is True,
        stop_sequences=stops,
        parallel_tool_calls=request.parallel_tool_calls is not False,
        output_format=fmt,
    )
