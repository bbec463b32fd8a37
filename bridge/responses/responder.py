"""From a validated request to the stream of Responses events: plan, ask the editor, translate.

`response_events` is the single data path; the HTTP layer either writes its batches as SSE or
folds them into one JSON body (`fold_response`), WebSocket mode sends them as frames.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from bridge.core import ids
from bridge.core.admission import admit
from bridge.core.answer import (
    INTERNAL_ERROR,
    INTERNAL_MESSAGE,
    EditorAnswer,
    estimate_usage,
    guarded,
)
from bridge.core.backend import (
    Backend,
    ChatRequest,
    ModelInfo,
)
from bridge.core.chat_request import RequestOptions, editor_chat
from bridge.core.errors import ApiError, from_failure_code, invalid_request
from bridge.core.models import ModelNames
from bridge.core.models import resolve_model as resolve_model
from bridge.core.request_tags import note_request
from bridge.core.structured_output import (
    DEFAULT_CHECK_SECONDS,
    OutputFormat,
    check_answer,
    checked_format,
    output_format,
)
from bridge.core.token_limits import limit_context
from bridge.responses.convert_input import editor_messages
from bridge.responses.events import Event, ResponseEventBuilder
from bridge.responses.response_object import new_response, usage_object
from bridge.responses.tools import ToolTarget, plan_request_tools
from bridge.responses.web_search import (
    SOURCES_INCLUDE,
    forces_search,
    offer_search,
    web_search_ask,
)
from bridge.responses.wire import AnyRequest, CreateBody, as_body

log = logging.getLogger(__name__)

TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
JUSTIFICATION = "A Responses API client (such as Codex CLI) asked Maestro Bridge for this answer."


@dataclass
class ResponsePlan:
    chat: ChatRequest
    response: dict[str, Any]
    targets: dict[str, ToolTarget]
    reasoning_summary: bool
    output_format: OutputFormat | None = None
    encrypted_reasoning: bool = False  # `include` asks for reasoning.encrypted_content
    check_seconds: float = DEFAULT_CHECK_SECONDS  # the answer's structured-output check
    search_sources: bool = False  # `include` asks for the web searches' sources


def _model_options(request: CreateBody) -> RequestOptions:
    """The sampling options; a reasoning summary has no way through Copilot (the model's
    thinking, where it shows any, still becomes the summary)."""
    reasoning = request.reasoning
    return RequestOptions(
        max_tokens=request.max_output_tokens,
        temperature=request.temperature,
        reasoning_effort=(reasoning.effort or None) if reasoning is not None else None,
        not_passed=("top_p",) if request.top_p is not None else (),
    )


def plan_response(request: AnyRequest, model: ModelInfo) -> ResponsePlan:
    """Everything decided before the editor is asked (pure; raises ApiError on bad input)."""
    request = as_body(request)  # the exact path's models (compaction's ask) as Structs
    ask = web_search_ask(request.tools, request.max_tool_calls)
    if (
        ask is not None
        and isinstance(request.tool_choice, dict)
        and forces_search(request.tool_choice)
    ):
        # The hosted tool is the choice: only the search is offered, and must be called (the
        # Response echoes `required`, as for a custom tool: Open Responses has no hosted choice).
        tools = plan_request_tools(replace(request, tool_choice="auto"))
        tools.tools, tools.mode, tools.choice_echo = [], "required", "required"
    else:
        tools = plan_request_tools(request)
    fmt = output_format(request.text)
    messages = editor_messages(request)
    if not messages:
        raise invalid_request(
            "The input holds no message the model can read.", param="input", code="invalid_value"
        )
    search = offer_search(tools.tools, ask, tools.choice_echo)
    chat = editor_chat(
        model, messages, tools.tools, tools.mode, _model_options(request), fmt, JUSTIFICATION
    )
    chat.webSearch = search
    response = new_response(request, ids.response_id(), tools.echo, tools.choice_echo)
    summary = request.reasoning is not None and request.reasoning.summary not in (None, "none")
    encrypted = "reasoning.encrypted_content" in (request.include or ())
    plan = ResponsePlan(chat, response, tools.targets, summary, fmt, encrypted_reasoning=encrypted)
    plan.search_sources = SOURCES_INCLUDE in (request.include or ())
    return plan


async def prepare_response(
    backend: Backend,
    request: AnyRequest,
    names: ModelNames,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
) -> ResponsePlan:
    """Model, plan and input check: what every transport does before asking the editor.

    `check_seconds` bounds validating a structured-output schema, and later the answer."""
    note_request("responses", request.model, bool(request.stream))
    model = resolve_model(request.model, await backend.list_models(), names)
    plan = plan_response(request, model)
    await admit(model.id)  # a spent token budget: refused before the editor is asked
    plan.output_format = await checked_format(plan.output_format, check_seconds)
    plan.check_seconds = check_seconds
    limit_context(plan.chat, model)  # the editor refuses an input the model cannot read
    return plan


def _answer_text(response: dict[str, Any]) -> str:
    return "".join(
        part.get("text", "")
        for item in response["output"]
        if item.get("type") == "message"
        for part in item.get("content", [])
    )


def response_events(
    backend: Backend, plan: ResponsePlan, keepalive_seconds: float = 0
) -> AsyncGenerator[list[Event], None]:
    """Yield batches of events; closing this iterator early cancels the editor request.

    Nothing is yielded before the editor's first part or, with `keepalive_seconds` > 0, the
    first keepalive (a keepalive event after each that long without a part). A failure before
    that raises (bridge/core/answer.py), after it the stream ends with `response.failed`.
    """
    builder = ResponseEventBuilder(
        plan.response, plan.targets, plan.reasoning_summary, plan.encrypted_reasoning
    )
    builder.search_sources = plan.search_sources
    batches = _response_batches(backend, plan, builder, keepalive_seconds)
    return guarded(batches, lambda error: builder.fail(error.code or error.type, error.message))


async def _response_batches(
    backend: Backend, plan: ResponsePlan, builder: ResponseEventBuilder, keepalive_seconds: float
) -> AsyncGenerator[list[Event], None]:
    answer = EditorAnswer(backend, plan.chat, keepalive_seconds)
    async with contextlib.aclosing(answer.batches()) as parts_batches:
        async for parts in parts_batches:
            events = builder.keepalive() if parts is None else builder.add(parts)
            if events:
                yield events
    usage = builder.usage
    if usage is None:
        counts = await estimate_usage(
            backend,
            plan.chat,
            "".join(builder.output_text),
            "".join(builder.reasoning_text),
        )
        usage = usage_object(*counts)
    if answer.filtered:  # Copilot's content filter ended the answer after it began
        yield builder.incomplete(usage, "content_filter")
        return
    if answer.cut(usage["output_tokens"]):
        # The editor has no stop reason; output that reached the limit was cut by it.
        yield builder.incomplete(usage, "max_output_tokens")
        return
    events = builder.complete(usage)  # closes the answer's message: its text is whole
    answer_text = _answer_text(plan.response)
    if plan.output_format is not None and answer_text:
        await check_answer(plan.output_format, answer_text, plan.check_seconds)  # never raises
    yield events


async def fold_response(events: AsyncIterator[list[Event]]) -> dict[str, Any]:
    """The non-streaming answer: the Response carried by the stream's terminal event."""
    final: dict[str, Any] | None = None
    async for batch in events:
        for event in batch:
            if event["type"] in TERMINAL_EVENTS:
                final = event["response"]
    if final is None:  # cannot happen: response_events always ends with a terminal event
        raise ApiError(
            502,
            "The editor ended the response without a result.",
            type="server_error",
            code="editor_error",
        )
    if final["status"] == "failed":
        error = final["error"] or {}
        if error.get("code") == INTERNAL_ERROR:  # a bug, not the editor: 500 as before a part
            raise ApiError(500, INTERNAL_MESSAGE, type="server_error", code=INTERNAL_ERROR)
        raise from_failure_code(str(error.get("code")), str(error.get("message", "")))
    return final
