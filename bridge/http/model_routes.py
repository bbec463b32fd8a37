"""`GET /v1/models` and `GET /v1/models/{id}`: one list that every dialect's clients read.

The OpenAI clients read `object`/`data[].id`; Anthropic's (Claude Code's model discovery, the
anthropic SDK's `models.list()`) read `data[].type`, `display_name`, `created_at` and the page
fields `has_more`, `first_id`, `last_id`. Each entry carries both sets: neither reader minds the
other's keys.

A dialect whose clients read these paths in a shape of their own, and say so with a header of
their own, registers its answers for that header (`answer_by_header`): this shared layer knows
no dialect, the dialects use it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bridge.core.backend import ModelInfo
from bridge.core.models import ModelNames, listed_models, model_object, resolve_model
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import strict_json_response

EPOCH = "1970-01-01T00:00:00Z"  # the editor tells no release date


def _both_shapes(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        **entry,
        "type": "model",
        "display_name": entry.get("name") or entry["id"],
        "created_at": EPOCH,
        "lifecycle": "active",  # required by the anthropic SDK's ModelInfo
    }


def model_list(models: list[ModelInfo], names: ModelNames) -> dict[str, Any]:
    data = [_both_shapes(entry) for entry in listed_models(models, names)]
    return {
        "object": "list",
        "data": data,
        "has_more": False,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
    }


def one_model(
    requested: str, models: list[ModelInfo], names: ModelNames | None = None
) -> dict[str, Any]:
    """The `GET /v1/models` entry named `requested` (an editor id or an alias), else a 404."""
    names = names or ModelNames()
    for entry in listed_models(models, names):
        if entry["id"] == requested:
            return _both_shapes(entry)
    # Not listed: another spelling of an editor model (`claude-sonnet-4-5`) is that model's
    # entry under the asked name, as a create request would be answered; anything else is the
    # same 404 as a create request naming it (the default model not applied).
    model = resolve_model(requested, models, ModelNames(names.aliases))
    return _both_shapes(model_object(model, alias=requested))


ListModels = Callable[[web.Request], Awaitable[web.StreamResponse]]
OneModel = Callable[[web.Request, str], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class HeaderAnswers:
    """A dialect's own answers to `GET /v1/models` (and `/{id}`) for requests with `header`."""

    header: str
    list_models: ListModels
    one_model: OneModel


MODEL_ANSWERS: web.AppKey[list[HeaderAnswers]] = web.AppKey("model_answers", list)


def answer_by_header(
    app: web.Application, header: str, list_models: ListModels, one_model: OneModel
) -> None:
    """Requests to the shared model paths that carry `header` are answered by the dialect."""
    app.setdefault(MODEL_ANSWERS, []).append(HeaderAnswers(header, list_models, one_model))


def _dialect_answers(request: web.Request) -> HeaderAnswers | None:
    for answers in request.app.get(MODEL_ANSWERS, []):
        if answers.header in request.headers:
            return answers
    return None


async def list_models(request: web.Request) -> web.StreamResponse:
    if (answers := _dialect_answers(request)) is not None:
        return await answers.list_models(request)
    models = await request.app[BACKEND].list_models()
    return strict_json_response(model_list(models, request.app[SETTINGS].model_names()))


async def get_model(request: web.Request) -> web.StreamResponse:
    if (answers := _dialect_answers(request)) is not None:
        return await answers.one_model(request, request.match_info["id"])
    models = await request.app[BACKEND].list_models()
    names = request.app[SETTINGS].model_names()
    return strict_json_response(one_model(request.match_info["id"], models, names))


def mount(app: web.Application) -> None:
    for prefix in ("/v1", ""):
        app.router.add_get(f"{prefix}/models", list_models)
        app.router.add_get(f"{prefix}/models/{{id:.+}}", get_model)  # ids may hold "/"
