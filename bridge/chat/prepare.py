"""Before the editor is asked: parse the body, resolve the model, plan, check the context."""

from __future__ import annotations

from typing import Any

from bridge.chat.plan import CompletionPlan, parse_completion_request, plan_completion
from bridge.chat.wire import CompletionRequest
from bridge.core.admission import admit
from bridge.core.backend import Backend, ModelInfo
from bridge.core.models import ModelNames, resolve_model
from bridge.core.request_tags import note_request
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, checked_format
from bridge.core.token_limits import limit_context


async def plan_request(
    backend: Backend, request: CompletionRequest, names: ModelNames
) -> tuple[CompletionPlan, ModelInfo]:
    """Resolve the model, plan (raises ApiError: 400 bad input, 404 unknown model)."""
    note_request("chat", request.model, bool(request.stream))
    model = resolve_model(request.model, await backend.list_models(), names)
    return plan_completion(request, model), model


async def prepare_request(
    backend: Backend,
    request: CompletionRequest,
    names: ModelNames,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
) -> CompletionPlan:
    """The plan, its JSON schema and the context check: all done before the editor is asked.

    `check_seconds` bounds validating a structured-output schema (and later the answer)."""
    plan, model = await plan_request(backend, request, names)
    await admit(model.id)  # a spent token budget: refused before the editor is asked
    plan.output_format = await checked_format(plan.output_format, check_seconds)
    limit_context(plan.chat, model, "messages")
    return plan


async def prepare_completion(
    backend: Backend, body: Any, names: ModelNames, check_seconds: float = DEFAULT_CHECK_SECONDS
) -> CompletionPlan:
    """`prepare_request` for a decoded JSON body, read on the exact path."""
    return await prepare_request(backend, parse_completion_request(body), names, check_seconds)
