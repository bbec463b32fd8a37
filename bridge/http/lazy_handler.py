"""Route handlers whose module is imported on the route's first request, not at start.

The endpoint's first request is the model list; a dialect's conversion, request models and
stream writers cost a few hundred milliseconds of imports that it does not need. Each dialect's
`mount` adds its routes with `lazy_handler` (the module named, not imported); the language
server imports them all in the background once it listens (`warm_up`, lsp/endpoint.py), so
the first chat does not wait for them either.

Concurrency: the import runs in another thread, so the event loop keeps answering meanwhile.
Python's import lock makes a request that needs a module being imported (by the warm-up or by
another request) wait for that import to finish, then all of them get the same module.
An import that fails is logged and answered as the bridge's own 500 in the dialect's envelope
(the errors middleware writes it); the next request tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType

from aiohttp import web

from bridge.core.errors import ApiError

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# The modules the app's lazy handlers name, in the order mounted: what `warm_up` imports.
DEFERRED_MODULES: web.AppKey[list[str]] = web.AppKey("deferred_modules", list)

# Modules whose import has finished (in this process): their handlers skip the thread.
_loaded: dict[str, ModuleType] = {}


def _import(name: str) -> ModuleType:
    # `__import__`, not `importlib.import_module`: `python -X importtime` lists only the former.
    __import__(name)
    module = sys.modules[name]
    _loaded[name] = module
    return module


async def load(name: str) -> ModuleType:
    """The module `name`, imported in a worker thread the first time."""
    module = _loaded.get(name)
    if module is None:
        module = await asyncio.to_thread(_import, name)
    return module


def lazy_handler(app: web.Application, module: str, name: str) -> Handler:
    """A handler that calls `module.name`, importing `module` on its first request."""
    deferred = app.setdefault(DEFERRED_MODULES, [])
    if module not in deferred:
        deferred.append(module)

    async def handler(request: web.Request) -> web.StreamResponse:
        try:
            target: Handler = getattr(await load(module), name)
        except Exception:
            log.exception("Cannot load the handler %s.%s for %s", module, name, request.path)
            raise ApiError(
                500,
                "Internal error in Maestro Bridge: the handler of this path cannot be loaded.",
                type="server_error",
                code="internal_error",
            ) from None
        return await target(request)

    handler.__qualname__ = handler.__name__ = f"lazy_{name}"
    return handler


def _import_all(names: Iterable[str]) -> None:
    for name in names:
        try:
            _import(name)
        except Exception:  # its first request reports it, in its dialect's envelope
            log.exception("Cannot import %s ahead of its first request", name)


async def warm_up(app: web.Application) -> None:
    """Import every module `app`'s lazy handlers name, in a thread of its own (the event loop
    keeps answering meanwhile). A daemon thread, not the loop's executor: a server stopped
    mid-import exits at once instead of waiting for the import to finish."""
    names = [name for name in app.get(DEFERRED_MODULES, []) if name not in _loaded]
    if not names:
        return
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def finished() -> None:
        if not done.done():  # not cancelled meanwhile
            done.set_result(None)

    def run() -> None:
        _import_all(names)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(finished)

    threading.Thread(target=run, name="maestro-warm-up", daemon=True).start()
    await done
