"""The language server: LSP lifecycle with the editor, and the HTTP endpoint it hosts."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from lsprotocol import types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from bridge import __version__
from bridge.app import create_app
from bridge.log_redaction import redact_logs
from bridge.settings import BridgeSettings
from lsp import rpc
from lsp.editor_backend import EditorBackend
from lsp.editor_tools import EditorToolHost
from lsp.endpoint import HttpEndpoint
from lsp.raw_messages import RawMessagesMixin

log = logging.getLogger(__name__)


class MaestroProtocol(RawMessagesMixin, LanguageServerProtocol):  # type: ignore[misc]
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
        self.tools = EditorToolHost(self.backend)
        self.settings = BridgeSettings()
        self._endpoint: HttpEndpoint | None = None

    async def start_http(self) -> None:
        """Starts binding the endpoint; the editor hears how it went (lsp/endpoint.py)."""
        app = create_app(self.backend, self.settings, self.tools)
        self._endpoint = HttpEndpoint(app, self.settings, self.rpc.notify_raw)
        await self._endpoint.start()

    async def stop_http(self) -> None:
        endpoint, self._endpoint = self._endpoint, None
        if endpoint is not None:
            await endpoint.stop()


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
        redact_logs(secret=ls.settings.apiKey)
        ls.backend.editor_counts_input = ls.settings.countsChatInput

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MaestroServer, params: types.InitializedParams) -> None:
        await ls.start_http()

    @server.feature(rpc.MODELS_CHANGED)
    def models_changed(ls: MaestroServer, params: Any) -> None:
        ls.backend.forget_models()

    @server.feature(rpc.TOOLS_CHANGED)
    def tools_changed(ls: MaestroServer, params: Any) -> None:
        ls.tools.tools_changed()

    @server.feature(rpc.STATS)
    def stats(ls: MaestroServer, params: Any) -> dict[str, int]:
        # Diagnostics for the editor only (never over HTTP): what is open right now.
        return {**ls.backend.pending(), "tasks": len(asyncio.all_tasks())}

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: MaestroServer, params: Any) -> None:
        await ls.stop_http()

    return server
