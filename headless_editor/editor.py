"""The headless editor: starts `maestro-bridge lsp` as a child process over stdio, exactly as
VS Code does, and answers its `maestro/*` requests with the simulated model, simulated tools
and an in-memory workspace."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from bridge.core.parts import INPUT_TOO_LONG, CountInput, EditorError, ResponsePart, TextPart
from headless_editor.chat_types import ChatRequest, chat_request, models_json
from headless_editor.jsonrpc import INVALID_PARAMS, EditorConnection, RpcError
from headless_editor.sim_tools import SimTool, ToolBox, sample_tools
from headless_editor.sim_workspace import SimWorkspace
from headless_editor.simulated_model import SimulatedModel
from headless_editor.spawn import spawn_language_server
from lsp import rpc
from lsp.rpc import INVOKE_TOOL, LANGUAGE, TOOLS, TOOLS_CHANGED

if TYPE_CHECKING:  # scripts are read with pydantic: imported only for `serve --script`
    from headless_editor.adopted_process import ServerProcess
    from headless_editor.script import Script

log = logging.getLogger(__name__)

STARTUP_TIMEOUT = 30.0


class EditorStartError(RuntimeError):
    """The language server could not be started or could not bind its port."""


class OptionsRefused(EditorStartError):
    """The language server refused the initialization options (as `serve` made them from its
    flags): the message is the server's, naming the option and why."""


# How long parts may wait to go out together: a notification as soon as a loop turn adds no
# part, else at most this many parts or this long after the first of them.
BATCH_PARTS = 256
BATCH_SECONDS = 0.002
# Once parts come turn after turn: how long until the next look (one look per turn would cost
# a callback per part).
LOOK_SECONDS = 0.0005


class PartSender:
    """Sends a chat's parts, several per notification when they come faster than one a turn.

    A part waits until the loop has run the turn after the one it came in (VS Code's extension
    waits for `setImmediate`, one turn): if no other part came in that turn, it goes out. If one
    did, the model streams parts turn after turn, and the batch waits LOOK_SECONDS more, again
    as long as parts keep coming, up to BATCH_PARTS parts or about BATCH_SECONDS. A model that
    streams a part now and then thus has each sent a loop turn or two later, while a fast stream
    goes out in notifications of many parts: each notification costs both processes far more
    than a part in it.

    Flow control (docs/protocol.md): with a `window` from the server, at most that many parts
    are sent and not yet acknowledged by `maestro/chatAck`; `blocked` tells the chat to wait
    for `credit()` before it reads more of the model's stream.
    """

    def __init__(self, protocol: EditorConnection, chat_id: str, window: int | None) -> None:
        self._protocol = protocol
        self._chat_id = chat_id
        self._buffer: list[dict[str, Any]] = []
        self._loop: asyncio.AbstractEventLoop | None = None  # the chat's, at its first part
        self._pending: asyncio.Handle | None = None  # the next look at the buffer
        self._seen = 0  # parts in the buffer at that look's scheduling
        self._first = 0.0  # loop time of the buffer's first part
        self._window = window
        self._unacked = 0  # parts handed to add() (sent or about to be) and not acknowledged
        self._credit = asyncio.Event()

    def add(self, part: ResponsePart) -> None:
        # Text parts are nearly every part of a stream: their JSON needs no copy of the fields.
        if type(part) is TextPart:
            self._buffer.append({"type": "text", "value": part.value})
        else:  # a part's encoding is its wire shape; an unset `id` is left out
            self._buffer.append(msgspec.to_builtins(part))
        self._unacked += 1
        if self._pending is None:
            loop = self._loop = self._loop or asyncio.get_running_loop()
            self._seen = 0
            self._first = loop.time()
            self._pending = loop.call_soon(self._look, loop)
        elif len(self._buffer) >= BATCH_PARTS:
            self.flush()

    def _look(self, loop: asyncio.AbstractEventLoop) -> None:
        """Send, unless parts came since the last look and the batch may wait a little more."""
        size = len(self._buffer)
        if size > self._seen and loop.time() - self._first < BATCH_SECONDS:
            # The first look comes before the model's next turn: the next, right after it.
            first, self._seen = self._seen == 0, size
            if first:
                self._pending = loop.call_soon(self._look, loop)
            else:
                self._pending = loop.call_later(LOOK_SECONDS, self._look, loop)
            return
        self._pending = None
        self.flush()

    @property
    def blocked(self) -> bool:
        return self._window is not None and self._unacked >= self._window

    async def credit(self) -> None:
        """Until the server has acknowledged enough parts to send more."""
        self.flush()  # what the server has not seen yet cannot be acknowledged
        while self.blocked:
            self._credit.clear()
            await self._credit.wait()

    def acknowledged(self, parts: int) -> None:
        self._unacked = max(0, self._unacked - parts)
        self._credit.set()

    def flush(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._buffer:
            parts, self._buffer = self._buffer, []
            self._protocol.notify_raw(rpc.CHAT_PARTS, {"chatId": self._chat_id, "parts": parts})


def chat_window(params: Any) -> int | None:
    """The `window` of `maestro/chat` params; None (no flow control) from an older server."""
    window = params.get("window") if isinstance(params, dict) else None
    if isinstance(window, int) and not isinstance(window, bool) and window > 0:
        return window
    return None


class HeadlessEditor:
    def __init__(
        self,
        model: SimulatedModel | None = None,
        script: Script | None = None,
        workspace: SimWorkspace | None = None,
    ) -> None:
        self.model = model or SimulatedModel()
        self.script = script
        self.workspace = workspace or SimWorkspace()
        self.toolbox = ToolBox(sample_tools(self.workspace))
        self.protocol = EditorConnection()
        self.process: ServerProcess | None = None
        self.url: str | None = None
        self._ready: asyncio.Future[dict[str, Any]] | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._senders: dict[str, PartSender] = {}  # open chats, for their acks
        self._register_handlers()

    # -- what the language server asks of the editor -----------------------------------------

    def _register_handlers(self) -> None:
        client = self.protocol

        @client.feature(rpc.MODELS)
        def models(params: Any) -> dict[str, Any]:
            return {"models": models_json(self.model.models())}

        @client.feature(rpc.COUNT_TOKENS)
        def count_tokens(params: Any) -> dict[str, Any]:
            return {"tokens": self.model.count_tokens(str((params or {}).get("text", "")))}

        @client.feature(rpc.CHAT)
        async def chat(params: Any) -> dict[str, Any]:
            return await self._chat(params)

        @client.feature(rpc.CHAT_ACK)
        def chat_ack(params: Any) -> None:
            if not isinstance(params, dict):
                return
            sender = self._senders.get(str(params.get("chatId")))
            parts = params.get("parts")
            if sender is not None and isinstance(parts, int) and not isinstance(parts, bool):
                sender.acknowledged(parts)

        @client.feature(TOOLS)
        def tools(params: Any) -> dict[str, Any]:
            return self.toolbox.listing()

        @client.feature(INVOKE_TOOL)
        async def invoke_tool(params: Any) -> dict[str, Any]:
            return await self.toolbox.invoke(params)

        @client.feature(LANGUAGE)
        def language(params: Any) -> dict[str, Any]:
            # Imported when first asked: `serve` starts faster without the analysis code.
            from headless_editor.sim_language import answer_language

            return answer_language(self.workspace, params)

        @client.feature(rpc.SERVER_READY)
        def server_ready(params: Any) -> None:
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(params)

        @client.feature(rpc.SERVER_FAILED)
        def server_failed(params: Any) -> None:
            if self._ready is not None and not self._ready.done():
                self._ready.set_exception(EditorStartError(str(params.get("message"))))

    def set_tools(self, tools: Iterable[SimTool]) -> None:
        """Offer these tools instead, and tell the server (`vscode.lm.onDidChangeTools`)."""
        self.toolbox = ToolBox(tools)
        self.protocol.notify_raw(TOOLS_CHANGED, None)

    def add_tool(self, tool: SimTool) -> None:
        self.set_tools([*self.toolbox.tools.values(), tool])

    def remove_tool(self, name: str) -> None:
        self.set_tools(t for t in self.toolbox.tools.values() if t.name != name)

    async def _chat(self, params: Any) -> dict[str, Any]:
        try:
            if not isinstance(params, dict):
                raise TypeError("the params are not an object")
            request = chat_request(params)
        except (msgspec.ValidationError, TypeError) as exc:
            raise RpcError(INVALID_PARAMS, f"Malformed chat request: {exc}") from None
        chat_id = str(params.get("chatId"))
        if request.countInput is not None:
            self._count_input(chat_id, request, request.countInput)
        sender = PartSender(self.protocol, chat_id, chat_window(params))
        self._senders[chat_id] = sender
        try:
            async for part in self.model.respond(request, self.script):
                sender.add(part)
                if sender.blocked:
                    await sender.credit()  # the model's stream waits with us
        except EditorError as exc:
            sender.flush()
            raise RpcError(
                rpc.EDITOR_ERROR_CODES.get(exc.code, -32000),
                exc.message,
                {"code": exc.code, "name": exc.name},
            ) from None
        finally:
            self._senders.pop(chat_id, None)
        sender.flush()  # every part goes out before the reply that ends the chat
        return {}

    def _count_input(self, chat_id: str, request: ChatRequest, asked: CountInput) -> None:
        """`countInput`: the input counted as the chat starts and told to the server; past
        `maxTokens` the chat is refused before the model is asked (docs/protocol.md)."""
        tokens = self.model.count_input(request.messages, request.tools) + asked.imageTokens
        self.protocol.notify_raw(rpc.CHAT_INPUT, {"chatId": chat_id, "inputTokens": tokens})
        if 0 < asked.maxTokens < tokens:
            raise RpcError(
                rpc.EDITOR_ERROR_CODES["Other"],
                f"The input is {tokens} tokens, more than the {asked.maxTokens} tokens the "
                "model can read.",
                {"code": "Other", "name": INPUT_TOO_LONG, "inputTokens": tokens},
            )

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(
        self,
        options: dict[str, Any],
        command: list[str] | None = None,
        process: ServerProcess | None = None,
    ) -> str:
        """Spawn the server (unless `process` was spawned already), initialize it, and wait
        until its HTTP endpoint listens."""
        self.process = process or await spawn_language_server(command)
        assert self.process.stdin is not None and self.process.stdout is not None
        protocol = self.protocol
        protocol.set_writer(rpc.PipeWriter(self.process.stdin.transport))
        self._reader_task = asyncio.create_task(rpc.read_messages(self.process.stdout, protocol))
        self._reader_task.add_done_callback(lambda _: self._fail_pending())
        self._ready = asyncio.get_running_loop().create_future()
        init = {
            "processId": os.getpid(),
            "capabilities": {},
            "clientInfo": {"name": "maestro-bridge headless editor"},
            "initializationOptions": {
                "protocolVersion": rpc.PROTOCOL_VERSION,
                "countsChatInput": True,  # `countInput` in maestro/chat: _count_input
                **options,
            },
        }
        try:
            await asyncio.wait_for(protocol.send_request_async("initialize", init), STARTUP_TIMEOUT)
            protocol.notify_raw("initialized", {})
            ready = await asyncio.wait_for(self._waiting_for_ready(), STARTUP_TIMEOUT)
        except RpcError as exc:
            await self.stop()
            if exc.code == INVALID_PARAMS:  # lsp/server.py checks the options it is given
                raise OptionsRefused(exc.message) from None
            raise EditorStartError(f"The language server refused to start: {exc.message}") from None
        except (asyncio.TimeoutError, EditorStartError):
            await self.stop()
            raise
        self.url = str(ready["url"])
        return self.url

    def _fail_pending(self) -> None:
        """The server's pipe closed: nothing we asked will be answered any more."""
        self.protocol.fail_pending(ConnectionError("the language server closed its pipe"))

    async def _waiting_for_ready(self) -> dict[str, Any]:
        assert self._ready is not None and self._reader_task is not None
        waiting: set[asyncio.Future[Any]] = {self._ready, self._reader_task}
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if self._ready in done:
            return self._ready.result()
        raise EditorStartError("The language server exited during startup (see its log above).")

    async def wait_closed(self) -> int:
        """Until the language server exits on its own; its exit code."""
        assert self.process is not None
        return await self.process.wait()

    async def stop(self, timeout: float = 5.0) -> None:
        """Polite LSP shutdown, then closing the pipe; kill only as a last resort."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        protocol = self.protocol
        try:
            await asyncio.wait_for(protocol.send_request_async("shutdown", None), timeout / 2)
            protocol.notify_raw("exit", None)
        except (asyncio.TimeoutError, RpcError, ConnectionError):
            log.warning("The language server did not shut down politely")
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), timeout / 2)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()
        if self._reader_task is not None:
            self._reader_task.cancel()
