"""`bridge.core.token_limits`: the context window checked before sending, max output enforced."""

from __future__ import annotations

import pytest
from counting_backend import CountingBackend

from bridge.core.backend import (
    INPUT_TOO_LONG,
    ChatMessage,
    ChatRequest,
    ChatTool,
    CountInput,
    DataPart,
    EditorError,
    ModelInfo,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.token_limits import (
    OutputLimit,
    chat_input_tokens,
    count_input_asked,
    enforce_count_input,
    input_text,
    input_too_long,
    limit_context,
)


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


def test_short_input_asks_for_no_count() -> None:
    chat = chat_of("a b c")
    limit_context(chat, model(100))
    assert chat.countInput is None  # 5 bytes can never be more than 100 tokens


def test_unknown_window_asks_for_no_count() -> None:
    chat = chat_of("word " * 1000)
    limit_context(chat, model(0))
    assert chat.countInput is None


def test_input_that_may_not_fit_asks_the_editor_to_count() -> None:
    chat = chat_of("word " * 50)
    limit_context(chat, model(60), "messages")
    assert chat.countInput == CountInput(maxTokens=60, imageTokens=0)
    assert chat.inputParam == "messages"
    assert chat.model_dump(exclude_none=True)["countInput"] == {"maxTokens": 60, "imageTokens": 0}


def test_images_count_toward_the_bound_and_are_sent_as_an_estimate() -> None:
    png = DataPart(mimeType="image/png", data="")
    chat = ChatRequest(
        model="m", messages=[ChatMessage(role="user", content=[TextPart(value="hi"), png])]
    )
    limit_context(chat, model(60))  # "hi" alone fits; with an image's estimate it may not
    assert chat.countInput is not None and chat.countInput.imageTokens > 58


async def test_an_input_that_fits_is_counted_once_and_kept() -> None:
    counter = WordCounter()
    chat = chat_of("word " * 50)
    limit_context(chat, model(60))
    await enforce_count_input(counter, chat)
    assert chat.counted_input == 50 and len(counter.calls) == 1
    # A retry's copy shares the count; nobody counts the input again.
    again = chat.model_copy()
    assert again.counted_input == 50
    assert await chat_input_tokens(CountingBackend(), again) == 50
    assert len(counter.calls) == 1


async def test_input_over_the_window_is_refused_and_the_client_gets_a_400() -> None:
    chat = chat_of("word " * 70)
    limit_context(chat, model(60))
    with pytest.raises(EditorError) as refused:
        await enforce_count_input(WordCounter(), chat)
    assert (refused.value.name, refused.value.input_tokens) == (INPUT_TOO_LONG, 70)
    error = input_too_long(chat, refused.value.input_tokens)
    assert (error.status, error.code, error.param) == (400, "context_length_exceeded", "input")
    assert "70" in error.message and "60" in error.message


async def test_tools_count_toward_the_window() -> None:
    tool = ChatTool(name="t", description="d " * 70)
    chat = chat_of("hi", [tool])
    limit_context(chat, model(60))
    with pytest.raises(EditorError):
        await enforce_count_input(WordCounter(), chat)


async def test_counter_failure_lets_the_request_through() -> None:
    chat = chat_of("word " * 70)
    limit_context(chat, model(60))
    await enforce_count_input(WordCounter(fail=True), chat)
    assert chat.counted_input is None


async def test_a_count_without_a_limit_never_refuses() -> None:
    chat = chat_of("word " * 70)
    count_input_asked(chat)
    await enforce_count_input(WordCounter(), chat)
    assert chat.counted_input == 70


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
