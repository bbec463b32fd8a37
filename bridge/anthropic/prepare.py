"""Before the editor is asked: parse the body, resolve the model, plan, check the context.

`body` is the fast path's Structs (routes.py), or a decoded JSON body the exact path parses."""

from __future__ import annotations

from typing import Any

from bridge.anthropic.plan import MessagesPlan, parse_messages_request, plan_messages
from bridge.anthropic.wire import MessagesBody
from bridge.core.admission import admit
from bridge.core.backend import Backend, ModelInfo
from bridge.core.models import ModelNames, resolve_model
from bridge.core.request_tags import note_request
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, checked_format
from bridge.core.token_limits import count_input_asked, limit_context


async def plan_body(
    backend: Backend, body: Any, names: ModelNames
) -> tuple[MessagesPlan, ModelInfo]:
    """Parse, resolve the model, plan (raises ApiError: 400 bad input, 404 unknown model)."""
    request = body if isinstance(body, MessagesBody) else parse_messages_request(body)
    note_request("anthropic", request.model, bool(request.stream))
    model = resolve_model(request.model, await backend.list_models(), names)
    return plan_messages(request, model), model


async def prepare_messages(
    backend: Backend, body: Any, names: ModelNames, check_seconds: float = DEFAULT_CHECK_SECONDS
) -> MessagesPlan:
    """The plan, its JSON schema and the context check: all done before the editor is asked.

    `check_seconds` bounds validating a structured-output schema (and later the answer)."""
    plan, model = await plan_body(backend, body, names)
    await admit(model.id)  # a spent token budget: refused before the editor is asked
    plan.output_format = await checked_format(plan.output_format, check_seconds)
    limit_context(plan.chat, model, "messages")
    count_input_asked(plan.chat)  # message_start states the input's tokens
    return plan
