"""bridge/http/lazy_handler.py on a real aiohttp server: a handler's module is imported once,
off the event loop, however many first requests come at once; an import that fails is answered
in the dialect's envelope, and the next request tries again.

The handler modules here are real files written to a folder on sys.path for the test.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bridge.anthropic.errors import anthropic_error_body
from bridge.app import errors_middleware
from bridge.http import error_shapes
from bridge.http.lazy_handler import DEFERRED_MODULES, lazy_handler, warm_up

# The module's import takes this long (in its worker thread): long enough that the requests
# sent meanwhile all find it mid-import.
IMPORT_SECONDS = 0.5

_HANDLER_MODULE = """
import pathlib, time
from aiohttp import web

pathlib.Path({log!r}).open("a").write("imported\\n")  # one line per execution of this body
time.sleep({seconds})

async def answer(request: web.Request) -> web.Response:
    return web.json_response({{"answered_by": __name__}})
"""


@pytest.fixture
def module_folder(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))


def _write_module(folder: Path, body: str) -> str:
    name = f"lazy_probe_{uuid.uuid4().hex}"  # new per test: no import is left over
    (folder / f"{name}.py").write_text(body, encoding="utf-8")
    importlib.invalidate_caches()
    return name


def _app(module: str) -> web.Application:
    app = web.Application(middlewares=[errors_middleware])
    error_shapes.register(app, ("/v1/messages",), anthropic_error_body, header="anthropic-version")
    app.router.add_post("/v1/messages", lazy_handler(app, module, "answer"))

    async def ping(request: web.Request) -> web.Response:
        return web.Response(text="pong")

    app.router.add_get("/ping", ping)
    return app


async def test_concurrent_first_requests_import_the_module_once_off_the_loop(
    module_folder: Path,
) -> None:
    log = module_folder / "imports.log"
    name = _write_module(
        module_folder, _HANDLER_MODULE.format(log=str(log), seconds=IMPORT_SECONDS)
    )
    app = _app(name)
    assert app[DEFERRED_MODULES] == [name]
    assert name not in sys.modules  # mounting imported nothing
    async with TestClient(TestServer(app)) as client:
        firsts = [asyncio.create_task(client.post("/v1/messages")) for _ in range(8)]
        await asyncio.sleep(IMPORT_SECONDS / 5)
        # The event loop answers while the module is being imported.
        pong = await client.get("/ping")
        assert await pong.text() == "pong"
        assert not all(first.done() for first in firsts)
        replies = await asyncio.gather(*firsts)
        assert [reply.status for reply in replies] == [200] * 8
        assert [await reply.json() for reply in replies] == [{"answered_by": name}] * 8
        later = await client.post("/v1/messages")
        assert (await later.json()) == {"answered_by": name}
    assert log.read_text().splitlines() == ["imported"]


async def test_a_failed_import_is_the_dialects_500_and_is_tried_again(
    module_folder: Path, caplog: pytest.LogCaptureFixture
) -> None:
    name = _write_module(module_folder, "raise RuntimeError('broken on purpose')\n")
    async with TestClient(TestServer(_app(name))) as client:
        reply = await client.post("/v1/messages")
        assert reply.status == 500
        assert await reply.json() == {
            "type": "error",
            "error": {
                "type": "api_error",
                "message": "Internal error in Maestro Bridge: the handler of this path cannot "
                "be loaded.",
            },
        }
        assert "broken on purpose" in caplog.text  # the cause is in the log, not the answer
        assert name not in sys.modules
        # Mended (as a reinstall would): the next request imports it and is answered.
        log = module_folder / "imports.log"
        (module_folder / f"{name}.py").write_text(
            _HANDLER_MODULE.format(log=str(log), seconds=0), encoding="utf-8"
        )
        importlib.invalidate_caches()
        reply = await client.post("/v1/messages")
        assert reply.status == 200
        assert await reply.json() == {"answered_by": name}


async def test_a_missing_module_is_the_dialects_500(module_folder: Path) -> None:
    async with TestClient(TestServer(_app(f"lazy_probe_missing_{uuid.uuid4().hex}"))) as client:
        reply = await client.post("/v1/messages")
        assert reply.status == 500
        assert (await reply.json())["error"]["type"] == "api_error"


async def test_the_warm_up_imports_every_deferred_module(module_folder: Path) -> None:
    log = module_folder / "imports.log"
    names = [
        _write_module(module_folder, _HANDLER_MODULE.format(log=str(log), seconds=0))
        for _ in range(2)
    ]
    broken = _write_module(module_folder, "raise RuntimeError('broken on purpose')\n")
    app = web.Application()
    for name in [names[0], broken, names[1]]:
        lazy_handler(app, name, "answer")
    await warm_up(app)  # a module that fails is left to its first request
    assert all(name in sys.modules for name in names)
    assert broken not in sys.modules
    assert log.read_text().splitlines() == ["imported", "imported"]
