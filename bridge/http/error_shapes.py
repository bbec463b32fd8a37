"""Each dialect answers errors in its own envelope; the path of a request picks the dialect.

The core raises one neutral `ApiError`; a dialect registers how it is written for the paths it
mounts (`register`). A path no dialect claims (an unknown path, `/health`) gets OpenAI's shape,
the envelope Maestro Bridge answered with first, unless the request carries a header only one
dialect's clients send (Anthropic's `anthropic-version`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bridge.core import strict_json
from bridge.core.errors import ApiError

ErrorShape = Callable[[ApiError], dict[str, Any]]


def openai_error_body(error: ApiError) -> dict[str, Any]:
    return error.body()


@dataclass
class ErrorShapes:
    """Path prefixes -> envelope (the longest matching prefix wins), then marker headers."""

    by_prefix: list[tuple[str, ErrorShape]] = field(default_factory=list)
    by_header: list[tuple[str, ErrorShape]] = field(default_factory=list)

    def add(self, prefixes: tuple[str, ...], shape: ErrorShape, header: str | None) -> None:
        self.by_prefix.extend((prefix, shape) for prefix in prefixes)
        self.by_prefix.sort(key=lambda entry: len(entry[0]), reverse=True)
        if header is not None:
            self.by_header.append((header, shape))

    def for_request(self, path: str, headers: Mapping[str, str]) -> ErrorShape:
        for prefix, shape in self.by_prefix:
            if path == prefix or path.startswith(prefix + "/"):
                return shape
        for header, shape in self.by_header:
            if header in headers:
                return shape
        return openai_error_body


ERROR_SHAPES: web.AppKey[ErrorShapes] = web.AppKey("error_shapes", ErrorShapes)


def register(
    app: web.Application,
    prefixes: tuple[str, ...],
    shape: ErrorShape,
    *,
    header: str | None = None,
) -> None:
    """Errors of requests under `prefixes` (or, elsewhere, carrying `header`) use `shape`."""
    if ERROR_SHAPES not in app:
        app[ERROR_SHAPES] = ErrorShapes()
    app[ERROR_SHAPES].add(prefixes, shape, header)


def error_body(request: web.Request, error: ApiError) -> dict[str, Any]:
    shapes = request.app.get(ERROR_SHAPES)
    if shapes is None:
        return openai_error_body(error)
    return shapes.for_request(request.path, request.headers)(error)


def error_response(request: web.Request, error: ApiError) -> web.Response:
    return web.json_response(
        error_body(request, error),
        status=error.status,
        headers=error.headers,
        dumps=strict_json.dumps,
    )
