"""A test double of the editor's model: the simulated model plus recording and failures.

`slow` is a model that waits after its first words (so a chat is reliably still running when
a test needs it); `error` fails every chat at once; `fail_next` fails the next chat midway.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from bridge.core.counted_text import counted_text
from bridge.core.parts import ChatMessage, DataPart, EditorError, ResponsePart, TextPart
from headless_editor.chat_types import ChatRequest, ChatTool, ModelInfo
from headless_editor.editor import HeadlessEditor
from headless_editor.script import Script
from headless_editor.simulated_model import SimulatedModel


class RecordingModel(SimulatedModel):
    """The simulated model, recording what reached the editor and how each chat ended."""

    def __init__(self) -> None:
        super().__init__()  # Copilot's rules, as every simulated model
        self.requests: list[ChatRequest] = []
        self.cancelled = asyncio.Event()
        self.slow = False
        self.error: EditorError | None = None
        self.send_usage = True
        self.fail_next: EditorError | None = None  # fails the next chat after one word
        self.counted: list[str] = []

    def count_tokens(self, text: str) -> int:
        self.counted.append(text)
        return super().count_tokens(text)

    def count_input(self, messages: list[ChatMessage], tools: list[ChatTool]) -> int:
        # The editor counts `countInput` a message at a time: recorded as the one text it counts.
        self.counted.append(counted_text(messages, tools)[0])
        return super().count_input(messages, tools)

    def models(self) -> list[ModelInfo]:
        return [*super().models(), ModelInfo(id="slow", name="Slow", maxInputTokens=1000)]

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            yield TextPart(value="partial ")
            raise error
        if request.model == "slow":
            try:
                yield TextPart(value="first ")
                await asyncio.sleep(30)
                yield TextPart(value="never")
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return
        async for part in super().respond(request, rules):
            if self.send_usage or not (isinstance(part, DataPart) and part.mimeType == "usage"):
                yield part


@contextlib.asynccontextmanager
async def running_editor(
    options: dict[str, Any], script: Script | None = None
) -> AsyncIterator[tuple[str, RecordingModel]]:
    """The real language server with its HTTP endpoint (its `/v1` URL), the editor and a
    RecordingModel in this process; `options` are the initialization options."""
    model = RecordingModel()
    editor = HeadlessEditor(model=model, script=script)
    url = await editor.start({"port": 0, **options})
    try:
        yield url, model
    finally:
        await editor.stop()
