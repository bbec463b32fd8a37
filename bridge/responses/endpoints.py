"""The Responses API's smaller endpoints: input-token counts and stored responses.

- `POST /v1/responses/input_tokens` counts what `POST /v1/responses` with the same body would
  send, with the editor's own token counter: `{"object": "response.input_tokens",
  "input_tokens": N}`. `model` may be left out (the editor's first model counts), as may
  `input`.
- `GET`/`DELETE /v1/responses/{id}` (and its `input_items`) and `POST /v1/responses/{id}/cancel`:
  the bridge keeps no responses, so these answer 404 (400 for cancel) saying so, rather than a
  bare "unknown path".
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bridge.core.backend import Backend
from bridge.core.copilot.internal_models import offered
from bridge.core.errors import ApiError, invalid_request
from bridge.core.limits import Limits
from bridge.core.models import ModelNames, resolve_model
from bridge.core.request_limits import check_request_shape
from bridge.core.token_limits import chat_input_tokens
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import read_json, strict_json_response
from bridge.responses.body import create_request
from bridge.responses.item_cache import ITEM_CACHE, resolve_references
from bridge.responses.responder import plan_response

_NOTHING_STORED = (
    "Maestro Bridge is stateless: it keeps no responses (`store` is always false), so there is "
    "nothing to retrieve, delete or cancel. Keep the output you received and send the full "
    "conversation in `input`."
)


async def input_tokens(request: web.Request) -> web.Response:
    body = await read_json(request)
    check_request_shape(body, request.app[SETTINGS].limits)  # the same bounds as creating
    body = resolve_references(body, request.app[ITEM_CACHE])
    settings = request.app[SETTINGS]
    counted = await count_input_tokens(
        request.app[BACKEND], body, settings.model_names(), settings.limits
    )
    return strict_json_response(counted)


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


async def count_input_tokens(
    backend: Backend, body: Any, names: ModelNames | None = None, limits: Limits | None = None
) -> dict[str, Any]:
    """The input tokens of a create-response body, as the editor's model counts them."""
    if not isinstance(body, dict):
        raise invalid_request("The request body must be a JSON object.", code="invalid_json")
    models = await backend.list_models()
    if not body.get("model"):
        if not offered(models):
            raise ApiError(
                404, "The editor offers no models.", param="model", code="model_not_found"
            )
        body = {**body, "model": offered(models)[0].id}
    body = {**body, "input": body.get("input") or [], "stream": False}
    request = create_request(body, limits or Limits())
    model = resolve_model(request.model, models, names)
    try:
        chat = plan_response(request, model).chat
    except ApiError as exc:
        if exc.param != "input":
            raise
        return {"object": "response.input_tokens", "input_tokens": 0}  # nothing to read
    tokens = await chat_input_tokens(backend, chat)  # images included
    return {"object": "response.input_tokens", "input_tokens": tokens}
