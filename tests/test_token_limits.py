"""`bridge.core.token_limits`: the context window checked before sending, max output enforced."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    ChatTool,
    EditorError,
    ModelInfo,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.token_limits import OutputLimit, check_context_length, input_text


class WordCounter:
    """A token counter double: one token per whitespace-separated word; records its calls."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail

    async def __call__(self, text: str) -> int:
        self.calls.append(text)
        if self.fail:
            raise EditorError("Other", "no counter")
        return len(text.split())


class CountingBackend:
    """Only `count_tokens` is used by the context check."""

    def __init__(self, counter: WordCounter) -> None:
        self.counter = counter

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        raise AssertionError("the context check never chats")
        yield []  # an async generator, as the protocol says

    async def count_tokens(self, model: str, text: str) -> int:
        return await self.counter(text)


def chat_of(text: str, tools: list[ChatTool] | None = None) -> ChatRequest:
    return ChatRequest(
        model="m",
        messages=[ChatMessage(role="user", content=[TextPart(value=text)])],
        tools=tools or [],
    )


def model(window: int) -> ModelInfo:
    return ModelInfo(id="m", maxInputTokens=window)


def test_input_text_covers_messages_calls_results_and_tools() -> None:
    chat = ChatRequest(
        model="m",
        messages=[
            ChatMessage(role="user", content=[TextPart(value="hello")]),
            ChatMessage(
                role="assistant", content=[ToolCallPart(callId="c", name="ls", input={"p": "/"})]
            ),
            ChatMessage(
                role="user",
                content=[ToolResultPart(callId="c", content=[TextPart(value="a.txt")])],
            ),
        ],
        tools=[ChatTool(name="ls", description="List.", inputSchema={"type": "object"})],
    )
    text = input_text(chat)
    # Compact JSON, as VS Code sends a call's input and a tool's schema.
    for piece in ("hello", 'ls {"p":"/"}', "a.txt", "List.", '"type":"object"'):
        assert piece in text


async def test_short_input_is_not_counted() -> None:
    counter = WordCounter()
    assert (
        await check_context_length(CountingBackend(counter), chat_of("a b c"), model(100)) is None
    )
    assert counter.calls == []  # 5 bytes can never be more than 100 tokens


async def test_unknown_window_is_not_checked() -> None:
    counter = WordCounter()
    backend = CountingBackend(counter)
    assert await check_context_length(backend, chat_of("word " * 1000), model(0)) is None
    assert counter.calls == []


async def test_long_input_that_fits_is_counted_once() -> None:
    counter = WordCounter()
    tokens = await check_context_length(CountingBackend(counter), chat_of("word " * 50), model(60))
    assert tokens == 50
    assert len(counter.calls) == 1


async def test_input_over_the_window_is_a_400() -> None:
    counter = WordCounter()
    with pytest.raises(ApiError) as caught:
        await check_context_length(CountingBackend(counter), chat_of("word " * 70), model(60))
    error = caught.value
    assert (error.status, error.code, error.param) == (400, "context_length_exceeded", "input")
    assert "70" in error.message and "60" in error.message


async def test_tools_count_toward_the_window() -> None:
    tool = ChatTool(name="t", description="d " * 70)
    with pytest.raises(ApiError):
        await check_context_length(CountingBackend(WordCounter()), chat_of("hi", [tool]), model(60))


async def test_counter_failure_lets_the_request_through() -> None:
    backend = CountingBackend(WordCounter(fail=True))
    assert await check_context_length(backend, chat_of("word " * 70), model(60)) is None


# --------------------------------------------------------------------------- output


def texts(parts: list[ResponsePart]) -> list[str]:
    return [p.value for p in parts if isinstance(p, (TextPart, ThinkingPart))]


async def test_output_under_the_byte_bound_is_never_counted() -> None:
    counter = WordCounter()
    limit = OutputLimit(100, counter)
    for _ in range(5):
        assert await limit.admit([TextPart(value="two words ")]) == [TextPart(value="two words ")]
    assert counter.calls == [] and not limit.reached


async def test_output_is_cut_at_the_limit_mid_part() -> None:
    limit = OutputLimit(5, WordCounter())
    first = await limit.admit([TextPart(value="one two three ")])
    second = await limit.admit([TextPart(value="four five six seven")])
    after = await limit.admit([TextPart(value="eight")])

    assert texts(first) == ["one two three "]
    assert texts(second) == ["four five "]  # the longest prefix of two words
    assert after == []
    assert limit.reached


async def test_exactly_at_the_limit_is_not_cut() -> None:
    limit = OutputLimit(3, WordCounter())
    assert texts(await limit.admit([TextPart(value="one two three")])) == ["one two three"]
    assert not limit.reached


async def test_thinking_counts_toward_the_limit() -> None:
    limit = OutputLimit(4, WordCounter())
    parts = await limit.admit(
        [ThinkingPart(value="think think think "), TextPart(value="answer is long")]
    )
    assert parts == [ThinkingPart(value="think think think "), TextPart(value="answer ")]
    assert limit.reached


async def test_a_tool_call_that_does_not_fit_is_dropped_whole() -> None:
    limit = OutputLimit(4, WordCounter())
    call = ToolCallPart(callId="c", name="ls", input={"path": "/a/very/long/path", "x": 1})
    parts = await limit.admit([TextPart(value="Calling ls."), call])
    assert parts == [TextPart(value="Calling ls.")]
    assert limit.reached


async def test_a_tool_call_that_fits_passes() -> None:
    limit = OutputLimit(10, WordCounter())
    call = ToolCallPart(callId="c", name="ls", input={"p": 1})
    assert await limit.admit([call]) == [call]


async def test_zero_limit_admits_nothing() -> None:
    limit = OutputLimit(0, WordCounter())
    assert await limit.admit([TextPart(value="a")]) == []
    assert limit.reached


async def test_counter_failure_leaves_the_limit_to_the_editor() -> None:
    limit = OutputLimit(2, WordCounter(fail=True))
    parts: list[ResponsePart] = [TextPart(value="one two three four")]
    assert await limit.admit(parts) == parts
    assert await limit.admit(parts) == parts
    assert not limit.reached


async def test_a_long_answer_costs_few_counts() -> None:
    counter = WordCounter()
    limit = OutputLimit(1000, counter)
    for _ in range(400):  # 400 tokens in 2000 bytes: twice the limit in bytes
        assert await limit.admit([TextPart(value="word ")]) == [TextPart(value="word ")]
    assert not limit.reached
    assert len(counter.calls) <= 10, len(counter.calls)


async def test_counted_text_is_never_counted_twice_toward_the_limit() -> None:
    limit = OutputLimit(6, WordCounter())
    admitted: list[ResponsePart] = []
    for word in ["a ", "b ", "c ", "d ", "e ", "f ", "g ", "h "]:
        admitted += await limit.admit([TextPart(value=word)])
    assert "".join(texts(admitted)) == "a b c d e f "
    assert limit.reached
