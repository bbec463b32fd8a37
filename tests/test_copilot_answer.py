"""`bridge.core.answer.EditorAnswer` on a Copilot-shaped request: tool calls come back under
the client's names, and a required call Copilot could only be told of is held and asked again."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

from bridge.core.answer import EditorAnswer
from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    ChatTool,
    ModelInfo,
    ResponsePart,
    TextPart,
    ToolCallPart,
)
from bridge.core.copilot.options import RequestOptions
from bridge.core.copilot.request import copilot_request
from bridge.core.copilot.required import REMINDER
from bridge.core.errors import ApiError

MODEL = ModelInfo(id="gpt-4.1", family="gpt-4.1", maxInputTokens=100_000)


class AnswersInTurn:
    """A backend that gives each chat the next answer (batches of parts) and records it."""

    def __init__(self, *answers: list[list[ResponsePart]]) -> None:
        self.answers = list(answers)
        self.requests: list[ChatRequest] = []

    async def list_models(self) -> list[ModelInfo]:
        return [MODEL]

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        self.requests.append(request)
        for batch in self.answers.pop(0):
            yield batch

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())


def request(tools: list[str], mode: str = "auto") -> ChatRequest:
    return copilot_request(
        MODEL,
        [ChatMessage(role="user", content=[TextPart(value="go")])],
        [ChatTool(name=name, description=name) for name in tools],
        "required" if mode == "required" else "auto",
        RequestOptions(),
        None,
    )


async def parts_of(answer: EditorAnswer) -> list[ResponsePart]:
    return [part async for batch in answer.batches() if batch for part in batch]


async def test_tool_calls_come_back_under_the_clients_names() -> None:
    chat = request(["mcp.fs/read", "Bash"])
    sent = chat.tools[0].name
    assert sent != "mcp.fs/read"
    backend = AnswersInTurn(
        [[TextPart(value="Reading."), ToolCallPart(callId="c", name=sent, input={"p": 1})]]
    )
    parts = await parts_of(EditorAnswer(backend, chat, 0))
    assert parts[1] == ToolCallPart(callId="c", name="mcp.fs/read", input={"p": 1})
    assert backend.requests[0].tools[0].name == sent  # the editor saw its own name


async def test_a_required_call_is_held_until_it_comes() -> None:
    chat = request(["a", "b"], "required")
    call = ToolCallPart(callId="c", name="b", input={})
    backend = AnswersInTurn(
        [[TextPart(value="Let me")], [TextPart(value=" see."), call], [TextPart(value="after")]]
    )
    batches = [batch async for batch in EditorAnswer(backend, chat, 0).batches()]
    assert batches == [
        [TextPart(value="Let me"), TextPart(value=" see."), call],
        [TextPart(value="after")],
    ]
    assert len(backend.requests) == 1


async def test_a_required_call_missing_is_asked_once_more() -> None:
    chat = request(["a", "b"], "required")
    call = ToolCallPart(callId="c", name="a", input={})
    backend = AnswersInTurn([[TextPart(value="I think so.")]], [[call]])
    parts = await parts_of(EditorAnswer(backend, chat, 0))
    assert parts == [call]  # the text-only answer never reached the client
    retry = backend.requests[1].messages
    assert retry[-2].role == "assistant" and retry[-2].content == [TextPart(value="I think so.")]
    assert retry[-1].content == [TextPart(value=REMINDER)]


async def test_text_alone_twice_is_a_clear_error() -> None:
    chat = request(["a", "b"], "required")
    backend = AnswersInTurn([[TextPart(value="No.")]], [[TextPart(value="Still no.")]])
    with pytest.raises(ApiError) as caught:
        await parts_of(EditorAnswer(backend, chat, 0))
    assert caught.value.code == "tool_call_missing" and "tool_choice" in caught.value.message
    assert len(backend.requests) == 2


async def test_auto_mode_streams_text_at_once() -> None:
    chat = request(["a", "b"])
    backend = AnswersInTurn([[TextPart(value="Just text.")]])
    assert await parts_of(EditorAnswer(backend, chat, 0)) == [TextPart(value="Just text.")]
