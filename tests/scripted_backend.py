"""A backend for the tests of a dialect's answer stream: it replays batches of parts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from bridge.core.backend import ChatRequest, EditorError, ModelInfo, ResponsePart
from bridge.core.token_limits import enforce_count_input


class ScriptedBackend:
    """Replays batches (then fails, if told); records whether it was closed early."""

    def __init__(
        self,
        batches: list[list[ResponsePart]],
        *,
        error: EditorError | None = None,
        silence: float = 0.0,
    ) -> None:
        self.batches = batches
        self.error = error
        self.silence = silence
        self.yielded = 0
        self.closed_early = False
        self.counted: list[str] = []

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="sim", maxInputTokens=1000)]

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        # `countInput`, as the Backend contract says: counted before the first part.
        await enforce_count_input(lambda text: self.count_tokens(request.model, text), request)
        try:
            for batch in self.batches:
                await asyncio.sleep(self.silence)
                yield batch
                self.yielded += 1
            if self.error is not None:
                raise self.error
        except GeneratorExit:
            self.closed_early = True
            raise

    async def count_tokens(self, model: str, text: str) -> int:
        self.counted.append(text)
        return len(text.split())
