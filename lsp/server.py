"""The language server: LSP lifecycle with the editor, and the HTTP endpoint it hosts."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from aiohttp import web
from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from bridge import __version__
from bridge.bind_policy import BindRefused, check_bind
from bridge.http_app import create_app
from bridge.log_redaction import redact_logs
from bridge.settings import BridgeSettings
from lsp import rpc
from lsp.editor_backend import EditorBackend

log = logging.getLogger(__name__)


class MaestroProtocol(rpc.RawMessagesMixin, LanguageServerProtocol):  # type: ignore[misc]
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {
            "maestroBridge": {"protocolVersion": rpc.PROTOCOL_VERSION}
        }
        return result


class MaestroServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "maestro-bridge",
            __version__,
            protocol_cls=MaestroProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.None_,
        )
        self.rpc = cast(MaestroProtocol, self.protocol)
        self.backend = EditorBackend(self.rpc)
        self.settings = BridgeSettings()
        self._runner: web.AppRunner | None = None

    async def start_http(self) -> None:
        settings = self.settings
        try:
            check_bind(settings)
        except BindRefused as exc:
            log.error("%s", exc)
            self.rpc.notify_raw(rpc.SERVER_FAILED, {"message": str(exc)})
            return
        app = create_app(self.backend, settings)
        # handler_cancellation: a client that goes away cancels its handler at once, which
        # closes the event stream and sends `$/cancelRequest` to the editor.
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=2.0
        )
        await runner.setup()
        try:
            site = web.TCPSite(runner, settings.host, settings.port)
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            message = f"Cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}"
            log.error("%s", message)
            self.rpc.notify_raw(rpc.SERVER_FAILED, {"message": message})
            return
        self._runner = runner
        host, port = runner.addresses[0][:2]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{port}/v1"
        log.info("Listening on %s", url)
        self.rpc.notify_raw(rpc.SERVER_READY, {"url": url, "host": host, "port": port})

    async def stop_http(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()


def create_server() -> MaestroServer:
    server = MaestroServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: MaestroServer, params: types.InitializeParams) -> None:
        options = params.initialization_options or {}
        version = options.get("protocolVersion") if isinstance(options, dict) else None
        if version != rpc.PROTOCOL_VERSION:
            raise JsonRpcInvalidParams(
                f"The editor speaks protocol version {version!r}; this maestro-bridge speaks "
                f"version {rpc.PROTOCOL_VERSION}. Update the one that is older."
            )
        try:
            ls.settings = BridgeSettings.from_options(options)
        except ValidationError as exc:
            raise JsonRpcInvalidParams(f"Invalid initialization options: {exc}") from None
        redact_logs(logging.getLogger().handlers, ls.settings.apiKey)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MaestroServer, params: types.InitializedParams) -> None:
        await ls.start_http()

    @server.feature(rpc.MODELS_CHANGED)
    def models_changed(ls: MaestroServer, params: Any) -> None:
        ls.backend.forget_models()

    @server.feature(rpc.STATS)
    def stats(ls: MaestroServer, params: Any) -> dict[str, int]:
        # Diagnostics for the editor only (never over HTTP): what is open right now.
        return {**ls.backend.pending(), "tasks": len(asyncio.all_tasks())}

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: MaestroServer, params: Any) -> None:
        await ls.stop_http()

    return server
