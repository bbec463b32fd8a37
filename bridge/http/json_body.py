"""Request bodies in and JSON answers out, strictly (no NaN, no lone surrogates)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bridge.core import strict_json
from bridge.core.errors import invalid_request
from bridge.core.strict_json import JsonInputError


def strict_json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """Every JSON answer: never a bare NaN or Infinity (they are not JSON)."""
    return web.json_response(data, status=status, headers=headers, dumps=strict_json.dumps)


async def read_json(request: web.Request) -> Any:
    """The request's JSON body; a 400 in the dialect's envelope when it is not JSON."""
    raw = await request.read()  # read already, within its deadline (bridge/http/body_deadline.py)
    try:
        return strict_json.decode(raw)
    except JsonInputError as exc:
        raise invalid_request(exc.message, param=exc.param, code=exc.code) from None
    except RecursionError:
        raise invalid_request(
            "The request body is nested too deeply to be read.", code="invalid_json"
        ) from None
