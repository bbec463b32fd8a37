"""`GET /v1/models` and `GET /v1/models/{id}`: one list that every dialect's clients read.

The OpenAI clients read `object`/`data[].id`; Anthropic's (Claude Code's model discovery, the
anthropic SDK's `models.list()`) read `data[].type`, `display_name`, `created_at` and the page
fields `has_more`, `first_id`, `last_id`. Each entry carries both sets: neither reader minds the
other's keys.
"""

from __future__ import annotations

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


# Google's SDKs send their key in this header, and google-genai (Python, 3.x) asks the Gemini
# API's `v1` by default: `GET /v1/models` is then theirs, answered in Google's shape.
GEMINI_HEADER = "x-goog-api-key"


async def list_models(request: web.Request) -> web.Response:
    if GEMINI_HEADER in request.headers:
        from bridge.gemini import models as gemini  # the dialect imports this module

        return await gemini.list_models(request)
    models = await request.app[BACKEND].list_models()
    return strict_json_response(model_list(models, request.app[SETTINGS].model_names()))


async def get_model(request: web.Request) -> web.Response:
    if GEMINI_HEADER in request.headers:
        from bridge.gemini import models as gemini

        return await gemini.answer_model(request, request.match_info["id"])
    models = await request.app[BACKEND].list_models()
    names = request.app[SETTINGS].model_names()
    return strict_json_response(one_model(request.match_info["id"], models, names))


def mount(app: web.Application) -> None:
    for prefix in ("/v1", ""):
        app.router.add_get(f"{prefix}/models", list_models)
        app.router.add_get(f"{prefix}/models/{{id:.+}}", get_model)  # ids may hold "/"
