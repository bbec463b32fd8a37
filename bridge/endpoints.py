"""The Responses API's smaller endpoints: input-token counts, one model, and stored responses.

- `POST /v1/responses/input_tokens` counts what `POST /v1/responses` with the same body would
  send, with the editor's own token counter: `{"object": "response.input_tokens",
  "input_tokens": N}`. `model` may be left out (the editor's first model counts), as may
  `input`.
- `GET /v1/models/{id}`: one model, in the shape of the list's entries.
- `GET`/`DELETE /v1/responses/{id}` (and its `input_items`) and `POST /v1/responses/{id}/cancel`:
  the bridge keeps no responses, so these answer 404 (400 for cancel) saying so, rather than a
  bare "unknown path".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bridge import strict_json
from bridge.backend import Backend, ModelInfo
from bridge.errors import ApiError, invalid_request
from bridge.item_cache import ITEM_CACHE, resolve_references
from bridge.models import ModelNames, listed_models, resolve_model
from bridge.request import parse_create_request
from bridge.request_limits import check_request_shape
from bridge.responder import plan_response
from bridge.settings import BridgeSettings
from bridge.token_limits import chat_input_tokens

ReadJson = Callable[[web.Request], Awaitable[Any]]

_NOTHING_STORED = (
    "Maestro Bridge is stateless: it keeps no responses (`store` is always false), so there is "
    "nothing to retrieve, delete or cancel. Keep the output you received and send the full "
    "conversation in `input`."
)


async def count_input_tokens(
    backend: Backend, body: Any, names: ModelNames | None = None
) -> dict[str, Any]:
    """The input tokens of a create-response body, as the editor's model counts them."""
    if not isinstance(body, dict):
        raise invalid_request("The request body must be a JSON object.", code="invalid_json")
    models = await backend.list_models()
    if not body.get("model"):
        if not models:
            raise ApiError(
                404, "The editor offers no models.", param="model", code="model_not_found"
            )
        body = {**body, "model": models[0].id}
    body = {**body, "input": body.get("input") or [], "stream": False}
    request = parse_create_request(body)
    model = resolve_model(request.model, models, names)
    try:
        chat = plan_response(request, model).chat
    except ApiError as exc:
        if exc.param != "input":
            raise
        return {"object": "response.input_tokens", "input_tokens": 0}  # nothing to read
    tokens = await chat_input_tokens(backend, chat)  # images included
    return {"object": "response.input_tokens", "input_tokens": tokens}


def one_model(
    requested: str, models: list[ModelInfo], names: ModelNames | None = None
) -> dict[str, Any]:
    """The `GET /v1/models` entry named `requested` (an editor id or an alias), else a 404."""
    names = names or ModelNames()
    for entry in listed_models(models, names):
        if entry["id"] == requested:
            return entry
    # Not listed: the same 404 as a create request naming it (the default model not applied).
    resolve_model(requested, models, ModelNames(names.aliases))
    raise AssertionError("unreachable: an unlisted name cannot resolve without a default")


def add_routes(
    app: web.Application,
    backend: web.AppKey[Backend],
    settings: web.AppKey[BridgeSettings],
    read_json: ReadJson,
) -> None:
    async def input_tokens(request: web.Request) -> web.Response:
        body = await read_json(request)
        check_request_shape(body, request.app[settings].limits)  # the same bounds as creating
        body = resolve_references(body, request.app[ITEM_CACHE])
        names = request.app[settings].model_names()
        return web.json_response(
            await count_input_tokens(request.app[backend], body, names), dumps=strict_json.dumps
        )

    async def get_model(request: web.Request) -> web.Response:
        models = await request.app[backend].list_models()
        names = request.app[settings].model_names()
        return web.json_response(
            one_model(request.match_info["id"], models, names), dumps=strict_json.dumps
        )

    async def stored_response(request: web.Request) -> web.Response:
        response_id = request.match_info["id"]
        raise ApiError(
            404,
            f"No response with id {response_id!r}. {_NOTHING_STORED}",
            param="response_id",
            code="response_not_found",
        )

    async def cancel(request: web.Request) -> web.Response:
        raise invalid_request(
            "Only background responses can be cancelled, and Maestro Bridge runs none: "
            "to stop a response, close the connection that streams it. " + _NOTHING_STORED,
            param="response_id",
            code="unsupported_operation",
        )

    # A response id is never one of the fixed names, so `GET /responses/compact` stays a 405.
    response_id = "{id:(?!compact$|input_tokens$)[^/]+}"
    for prefix in ("/v1", ""):
        app.router.add_post(f"{prefix}/responses/input_tokens", input_tokens)
        app.router.add_get(f"{prefix}/models/{{id:.+}}", get_model)  # ids may hold "/"
        app.router.add_get(f"{prefix}/responses/{response_id}", stored_response)
        app.router.add_delete(f"{prefix}/responses/{response_id}", stored_response)
        app.router.add_get(f"{prefix}/responses/{response_id}/input_items", stored_response)
        app.router.add_post(f"{prefix}/responses/{response_id}/cancel", cancel)
