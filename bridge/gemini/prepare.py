"""Before the editor is asked: parse the body, resolve the model, plan, check the context."""

from __future__ import annotations

from typing import Any

from bridge.core.admission import admit
from bridge.core.backend import Backend, ModelInfo
from bridge.core.models import ModelNames, resolve_model
from bridge.core.request_tags import note_request
from bridge.core.structured_output import DEFAULT_CHECK_SECONDS, checked_format
from bridge.core.token_limits import limit_context
from bridge.gemini.plan import GeminiPlan, parse_generate_request, plan_generate
from bridge.gemini.wire import GenerateContentRequest


def model_id(model_name: str) -> str:
    """The path's `{model}` without the `models/` prefix clients may send (`models/gemini-x`)."""
    return model_name.removeprefix("models/")


async def plan_body(
    backend: Backend,
    body: GenerateContentRequest | Any,
    model_name: str,
    stream: bool,
    names: ModelNames,
) -> tuple[GeminiPlan, ModelInfo]:
    """Parse, resolve the path's model, plan (raises ApiError: 400 bad input, 404 unknown model).

    `body` as the routes read it (body.py), or decoded JSON, which the exact path parses."""
    request = body if type(body) is GenerateContentRequest else parse_generate_request(body)
    name = model_id(model_name)
    note_request("gemini", name, stream)
    model = resolve_model(name, await backend.list_models(), names)
    return plan_generate(request, name, model, stream), model


async def prepare_generate(
    backend: Backend,
    body: GenerateContentRequest | Any,
    model_name: str,
    stream: bool,
    names: ModelNames,
    check_seconds: float = DEFAULT_CHECK_SECONDS,
) -> GeminiPlan:
    """The plan, its JSON schema and the context check: all done before the editor is asked.

    `check_seconds` bounds validating a structured-output schema (and later the answer)."""
    plan, model = await plan_body(backend, body, model_name, stream, names)
    await admit(model.id)  # a spent token budget: refused before the editor is asked
    plan.output_format = await checked_format(plan.output_format, check_seconds)
    limit_context(plan.chat, model, "contents")
    return plan
