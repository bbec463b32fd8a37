"""A backend for the tests of a dialect's prepare step: models and a counter, no answers."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from bridge.core.backend import ChatRequest, ModelInfo, ResponsePart


class CountingBackend:
    """Models to resolve and a token counter (one token a word); asking it for an answer is a
    test failure."""

    def __init__(self, max_input_tokens: int = 1000) -> None:
        self.model = ModelInfo(id="sim-echo", maxInputTokens=max_input_tokens)

    async def list_models(self) -> list[ModelInfo]:
        return [self.model]

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        raise AssertionError("prepare must not ask the model")
        yield []

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())
