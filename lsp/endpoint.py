"""The HTTP endpoint's life in the language server: bind it, or stand by until it can.

An editor with several windows (VS Code) starts one language server per window, all set to the
same port. The first to bind serves. With the `standby` option, the others find that another
Maestro Bridge holds the port (lsp/port_holder.py), say so (`maestro/serverStandby`), and try
again every second, so that one of them takes over soon after the serving one exits
(`maestro/serverReady`). The kernel lets only one of them bind, so windows that start at once
settle the same way. A port held by any other program stays an error (`maestro/serverFailed`),
and so does one held by a bridge when `standby` is off (`maestro-bridge serve`).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
from collections.abc import Callable
from typing import Any

from aiohttp import web

from bridge.heap_tuning import keep_large_buffers
from bridge.http.bind_policy import BindRefused, check_bind
from bridge.http.connection_limits import GuardedAppRunner
from bridge.http.lazy_handler import warm_up
from bridge.settings import BridgeSettings
from lsp import rpc
from lsp.port_holder import Holder, who_holds

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
# Probes in a row without an answer before the holder counts as another program: a bridge that
# is busy, just starting or just closing may miss one.
UNANSWERED_LIMIT = 3
SHUTDOWN_TIMEOUT = 2.0
WARM_UP_DELAY = 0.1  # seconds after the endpoint is announced

Notify = Callable[[str, dict[str, Any]], None]


def endpoint_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/v1"


class HttpEndpoint:
    """Serves `app` on the settings' host and port; tells the editor how that goes."""

    def __init__(self, app: web.Application, settings: BridgeSettings, notify: Notify) -> None:
        self._app = app
        self._settings = settings
        self._notify = notify
        self._runner: web.AppRunner | None = None
        self._task: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Returns at once; binding (and standing by) goes on in a task until `stop`."""
        settings = self._settings
        try:
            check_bind(settings.host, allow_remote=settings.allowRemote, api_key=settings.apiKey)
        except BindRefused as exc:
            self._fail(str(exc))
            return
        # handler_cancellation: a client that goes away cancels its handler at once, which
        # closes the event stream and sends `$/cancelRequest` to the editor.
        # Idle, half-sent and too many connections are closed (bridge/http/connection_limits.py).
        runner = GuardedAppRunner(
            self._app,
            self._settings.limits,
            handler_cancellation=True,
            access_log=None,
            shutdown_timeout=SHUTDOWN_TIMEOUT,
        )
        await runner.setup()
        self._runner = runner
        self._task = asyncio.create_task(self._acquire(runner))

    async def stop(self) -> None:
        for task in (self._task, self._warming):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._warming = None
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()  # closes the listening socket first: the port is free

    async def _acquire(self, runner: web.AppRunner) -> None:
        host, port = self._settings.host, self._settings.port
        unanswered = 0
        standing_by = False
        while True:
            site = web.TCPSite(runner, host, port)
            try:
                await site.start()
            except OSError as exc:
                await site.stop()  # unregisters the site that did not start
                if exc.errno != errno.EADDRINUSE or port == 0:
                    self._fail(self._cannot_listen(exc))
                    return
                holder = await who_holds(host, port)
                if not self._settings.standby:
                    self._fail(self._cannot_listen(exc, holder))
                    return
                if holder is Holder.BRIDGE:
                    unanswered = 0
                    if not standing_by:
                        standing_by = True
                        self._standby()
                elif holder is Holder.OTHER or (unanswered := unanswered + 1) >= UNANSWERED_LIMIT:
                    self._fail(self._cannot_listen(exc, holder))
                    return
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self._ready(runner)
            return

    def _ready(self, runner: web.AppRunner) -> None:
        host, port = runner.addresses[0][:2]
        url = endpoint_url(host, port)
        log.info("Listening on %s", url)
        # Everything imported and built so far lives as long as the process: out of the
        # collector's sight, a long request's tens of thousands of new objects no longer make
        # each full collection walk the ~100,000 of the modules too (a third of the CPU of a
        # 4,000-item request, docs/benchmarks.md).
        gc.freeze()
        self._notify(rpc.SERVER_READY, {"url": url, "host": host, "port": port})
        self._warming = asyncio.create_task(self._warm_up())

    async def _warm_up(self) -> None:
        """The handlers left for their first request (bridge/http/lazy_handler.py), imported
        now in a thread of their own, so that the first chat does not wait for them; then frozen
        as the rest was, and the allocator told to keep large buffers (bridge/heap_tuning.py).
        After a pause: the imports hold the GIL most of the time, and whoever started the
        server asks its first request (the model list) at once."""
        await asyncio.sleep(WARM_UP_DELAY)
        await warm_up(self._app)
        keep_large_buffers()
        gc.freeze()

    def _standby(self) -> None:
        host, port = self._settings.host, self._settings.port
        url = endpoint_url(host, port)
        log.info("Another Maestro Bridge serves %s: standing by to take over when it stops", url)
        self._notify(rpc.SERVER_STANDBY, {"url": url, "host": host, "port": port})

    def _fail(self, message: str) -> None:
        log.error("%s", message)
        self._notify(rpc.SERVER_FAILED, {"message": message})

    def _cannot_listen(self, exc: OSError, holder: Holder | None = None) -> str:
        host, port = self._settings.host, self._settings.port
        reason = {
            None: "",
            Holder.BRIDGE: f" (another Maestro Bridge serves {endpoint_url(host, port)})",
            Holder.OTHER: " (held by a program that is not Maestro Bridge)",
            Holder.SILENT: " (held by a program that does not answer as Maestro Bridge)",
        }[holder]
        return f"Cannot listen on {host}:{port}: {exc.strerror or exc}{reason}"
