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

from bridge import ids
from bridge.backend import (
    Backend,
    ChatMessage,
    ChatRequest,
    EditorError,
    ModelInfo,
    TextPart,
)
from bridge.convert_input import editor_messages
from bridge.errors import ApiError, from_editor, from_failure_code, invalid_request
from bridge.events import Event, ResponseEventBuilder
from bridge.keepalive import with_keepalive
from bridge.models import ModelNames
from bridge.models import resolve_model as resolve_model
from bridge.request import CreateResponseRequest
from bridge.response_object import new_response, usage_object
from bridge.structured_output import (
    DEFAULT_CHECK_SECONDS,
    OutputFormat,
    check_answer,
    checked_format,
    output_format,
)
from bridge.token_limits import OutputLimit, chat_input_tokens, check_context_length
from bridge.tools import ToolTarget, plan_request_tools

log = logging.getLogger(__name__)

TERMINAL_EVENTS = ("response.completed", "response.failed", "response.incomplete")
INTERNAL_ERROR = "internal_error"
INTERNAL_MESSAGE = "Internal error in Maestro Bridge."
JUSTIFICATION = "A Responses API client (such as Codex CLI) asked Maestro Bridge for this answer."


@dataclass
class ResponsePlan:
    chat: ChatRequest
    response: dict[str, Any]
    targets: dict[str, ToolTarget]
    reasoning_summary: bool
    output_format: OutputFormat | None = None
    input_tokens: int | None = None  # counted by the editor before sending, when it was
    check_seconds: float = DEFAULT_CHECK_SECONDS  # the answer's structured-output check


def _model_options(request: CreateResponseRequest) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.top_p is not None:
        options["topP"] = request.top_p
    if request.max_output_tokens is not None:
        options["maxOutputTokens"] = request.max_output_tokens
    if request.reasoning is not None:
        if request.reasoning.effort:
            options["reasoningEffort"] = request.reasoning.effort
        if request.reasoning.summary:
            options["reasoningSummary"] = request.reasoning.summary
    return options


def plan_response(request: CreateResponseRequest, model: ModelInfo) -> ResponsePlan:
    """Everything decided before the editor is asked (pure; raises ApiError on bad input)."""
    tools = plan_request_tools(request)
    fmt = output_format(request.text)
    messages = editor_messages(request)
    if not messages:
        raise invalid_request(
            "The input holds no message the model can read.", param="input", code="invalid_value"
        )
    options = _model_options(request)
    if fmt is not None:
        options["responseFormat"] = fmt.model_option()
        # First, with the other system-like text: the last message stays the client's.
        messages.insert(0, ChatMessage(role="user", content=[TextPart(value=fmt.instruction())]))
    chat = ChatRequest(
        model=model.id,
        messages=messages,
        tools=tools.tools,
        toolMode=tools.mode,
        modelOptions=options,
        justification=JUSTIFICATION,
    )
    response = new_response(request, ids.response_id(), tools.echo, tools.choice_echo)
    summary = request.reasoning is not None and request.reasoning.summary not in (None, "none")
    return ResponsePlan(chat, response, tools.targets, summary, fmt)


async def check_input(backend: Backend, plan: ResponsePlan, model: ModelInfo) -> None:
    """Before sending: 400 `context_length_exceeded` for input the model cannot read."""
    plan.input_tokens = await check_context_length(backend, plan.chat, model)


async def prepare_response(
    backend: Backend,
    request: CreateResponseRequest,
    names: ModelNames,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
) -> ResponsePlan:
    """Model, plan and input check: what every transport does before asking the editor.

    `check_seconds` bounds validating a structured-output schema, and later the answer."""
    model = resolve_model(request.model, await backend.list_models(), names)
    plan = plan_response(request, model)
    plan.output_format = await checked_format(plan.output_format, check_seconds)
    plan.check_seconds = check_seconds
    await check_input(backend, plan, model)
    return plan


async def _estimate_usage(
    backend: Backend, plan: ResponsePlan, builder: ResponseEventBuilder
) -> Event:
    """No usage from the editor: count with the editor's own tokenizer."""
    model = plan.chat.model
    try:
        input_tokens = plan.input_tokens
        if input_tokens is None:
            input_tokens = await chat_input_tokens(backend, plan.chat)
        output = "".join(builder.output_text)
        output_tokens = await backend.count_tokens(model, output) if output else 0
        thought = "".join(builder.reasoning_text)
        reasoning_tokens = await backend.count_tokens(model, thought) if thought else 0
    except EditorError:
        log.warning("The editor could not count tokens; usage reported as zero")
        return usage_object(0, 0)
    return usage_object(input_tokens, output_tokens + reasoning_tokens, reasoning_tokens)


def _answer_text(response: dict[str, Any]) -> str:
    return "".join(
        part.get("text", "")
        for item in response["output"]
        if item.get("type") == "message"
        for part in item.get("content", [])
    )


async def response_events(
    backend: Backend, plan: ResponsePlan, keepalive_seconds: float = 0
) -> AsyncGenerator[list[Event], None]:
    """Yield batches of events; closing this iterator early cancels the editor request.

    Nothing is yielded before the editor's first part or, with `keepalive_seconds` > 0, the
    first keepalive (a keepalive event after each that long without a part). A failure before
    that raises (an editor failure its ApiError), so that a stream can still answer with the
    HTTP status (429 with Retry-After, 403, 404, 502...); after it, any failure, a bug
    included, ends the stream with `response.failed`: a client never waits on a cut stream.
    """
    builder = ResponseEventBuilder(plan.response, plan.targets, plan.reasoning_summary)
    sent = False  # a batch went out: the response's status line is no longer ours to choose
    batches = _response_batches(backend, plan, builder, keepalive_seconds)
    try:
        async with contextlib.aclosing(batches):  # closed now, not when collected
            async for batch in batches:
                sent = True
                yield batch
    except EditorError as exc:
        log.warning("The editor failed the request: %s (%s)", exc.message, exc.code)
        error = from_editor(exc.code, exc.message)
        if not sent:
            raise error from None
        yield builder.fail(error.code or "editor_error", error.message)
    except ApiError as exc:
        if not sent:
            raise
        log.warning("The response failed: %s (%s)", exc.message, exc.code)
        yield builder.fail(exc.code or exc.type, exc.message)
    except Exception:
        if not sent:
            raise  # the transport's own handler logs it and answers 500
        log.exception("Unexpected error in a response; it ends as failed")
        yield builder.fail(INTERNAL_ERROR, INTERNAL_MESSAGE)


async def _response_batches(
    backend: Backend, plan: ResponsePlan, builder: ResponseEventBuilder, keepalive_seconds: float
) -> AsyncGenerator[list[Event], None]:
    limit = plan.chat.modelOptions.get("maxOutputTokens")
    limiter = None
    if isinstance(limit, int):
        limiter = OutputLimit(limit, lambda text: backend.count_tokens(plan.chat.model, text))
    chat = with_keepalive(backend.chat(plan.chat), keepalive_seconds)
    try:
        async for parts in chat:
            if parts is None:  # the model is silent
                yield builder.keepalive()
                continue
            if limiter is not None:
                parts = await limiter.admit(parts)
            events = builder.add(parts)
            if events:
                yield events
            if limiter is not None and limiter.reached:
                break  # closing the chat below cancels the editor's request
    finally:
        await chat.aclose()  # closes the editor's chat too
    usage = builder.usage or await _estimate_usage(backend, plan, builder)
    if (limiter is not None and limiter.reached) or (
        isinstance(limit, int) and usage["output_tokens"] >= limit
    ):
        # The editor has no stop reason; output that reached the limit was cut by it.
        yield builder.incomplete(usage, "max_output_tokens")
        return
    events = builder.complete(usage)  # closes the answer's message: its text is whole
    answer = _answer_text(plan.response)
    if plan.output_format is not None and answer:
        await check_answer(plan.output_format, answer, plan.check_seconds)  # never raises
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
