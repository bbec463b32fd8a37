"""`GET /v1beta/models` and `GET /v1beta/models/{model}`: the editor's models as Gemini `Model`s.

Also `GET /v1/models...` when a Google SDK asks (its key header: `routes.mount` registers these
answers with bridge/http/model_routes.py).

Names are `models/<id>` (aliases listed under their own name, as `GET /v1/models` lists them).
The editor tells the input window (`inputTokenLimit`) but no output limit, so
`outputTokenLimit` is left out rather than made up. Pages follow Google's `pageSize` (default
50, at most 1000) and an opaque `pageToken` that the previous page's `nextPageToken` gave.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aiohttp import web

from bridge.core.backend import ModelInfo
from bridge.core.errors import invalid_request
from bridge.core.models import ModelNames, listed_models
from bridge.http.app_keys import BACKEND, SETTINGS
from bridge.http.json_body import strict_json_response
from bridge.http.model_routes import one_model

METHODS = ["generateContent", "streamGenerateContent", "countTokens"]
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000
_TOKEN_PREFIX = "maestro:"


def bare_name(name: str) -> str:
    """`models/gemini-x` -> `gemini-x` (clients send either)."""
    return name.removeprefix("models/")


def gemini_model(entry: dict[str, Any]) -> dict[str, Any]:
    """A `GET /v1/models` entry (bridge/core/models.py) as Google's `Model`."""
    model_id = entry["id"]
    maker = entry.get("owned_by") or "the editor"
    model: dict[str, Any] = {
        "name": f"models/{model_id}",
        "baseModelId": model_id,
        "version": entry.get("version") or "001",
        "displayName": entry.get("name") or model_id,
        "description": f"{entry.get('alias_for') or model_id} by {maker}, through Maestro Bridge.",
        "supportedGenerationMethods": list(METHODS),
    }
    if entry.get("max_input_tokens"):
        model["inputTokenLimit"] = entry["max_input_tokens"]
    return model


def page_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{_TOKEN_PREFIX}{offset}".encode()).decode()


def page_offset(token: str | None) -> int:
    """Where a page starts; 400 for a token this bridge did not give."""
    if not token:
        return 0
    try:
        text = base64.urlsafe_b64decode(token.encode()).decode()
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    offset = text.removeprefix(_TOKEN_PREFIX)
    if not text.startswith(_TOKEN_PREFIX) or not offset.isdigit():
        raise invalid_request("Invalid `pageToken`: not one this server gave.", param="pageToken")
    return int(offset)


def page_size(raw: str | None) -> int:
    if raw is None or raw == "":
        return DEFAULT_PAGE_SIZE
    try:
        size = int(raw)
    except ValueError:
        raise invalid_request(
            "Invalid `pageSize`: expected a whole number.", param="pageSize"
        ) from None
    if size < 0:
        raise invalid_request("Invalid `pageSize`: must not be negative.", param="pageSize")
    return min(size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def model_page(
    models: list[ModelInfo], names: ModelNames, size: int, offset: int
) -> dict[str, Any]:
    entries = [gemini_model(entry) for entry in listed_models(models, names)]
    page: dict[str, Any] = {"models": entries[offset : offset + size]}
    if offset + size < len(entries):
        page["nextPageToken"] = page_token(offset + size)
    return page


async def list_models(request: web.Request) -> web.Response:
    size = page_size(request.query.get("pageSize"))
    offset = page_offset(request.query.get("pageToken"))
    models = await request.app[BACKEND].list_models()
    names = request.app[SETTINGS].model_names()
    return strict_json_response(model_page(models, names, size, offset))


async def answer_model(request: web.Request, name: str) -> web.Response:
    models = await request.app[BACKEND].list_models()
    names = request.app[SETTINGS].model_names()
    return strict_json_response(gemini_model(one_model(bare_name(name), models, names)))


async def get_model(request: web.Request) -> web.Response:
    return await answer_model(request, request.match_info["name"])
