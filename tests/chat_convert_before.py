"""The Chat Completions conversion as it was before the fast path (pydantic models in), kept
unchanged as the reference of tests/test_chat_fast_path.py: the new one (bridge/chat/convert.py,
over wire.py's Structs) must give the same messages for every body.

Its original docstring: `messages` -> the editor's chat messages (pure functions)."""

from __future__ import annotations

import logging
from typing import Literal

from bridge.chat.protocol import (
    AssistantMessage,
    Content,
    FileContent,
    FunctionCall,
    FunctionMessage,
    ImageContent,
    Message,
    OtherContent,
    RefusalContent,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
)
from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import invalid_request
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part
from bridge.core.tools import tool_input

log = logging.getLogger(__name__)

LABELS = {"system": "[System message]", "developer": "[Developer message]"}
AUDIO_TYPES = ("input_audio", "audio")
ASSISTANT_DATA_NOTE = "[an image or file in an assistant message, not included]"


def _other_parts(part: OtherContent, param: str) -> list[MessagePart]:
    if part.type in AUDIO_TYPES:
        raise invalid_request(
            f"Audio input is not supported: the editor's models take text and images only "
            f"(`{param}` is of type {part.type!r}).",
            param=f"{param}.{part.type}",
            code="unsupported_value",
        )
    log.info("Content part of type %r the editor cannot take: a note instead", part.type)
    return [TextPart(value=f"[content of type {part.type!r} not included]")]


def content_parts(content: Content | None, param: str) -> list[MessagePart]:
    """A user, system or tool message's content (a string or parts) -> the editor's parts."""
    if content is None or isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    for index, part in enumerate(content):
        where = f"{param}[{index}]"
        if isinstance(part, TextContent):
            parts.extend([TextPart(value=part.text)] if part.text else [])
        elif isinstance(part, RefusalContent):
            parts.extend([TextPart(value=part.refusal)] if part.refusal else [])
        elif isinstance(part, ImageContent):
            parts.append(image_part(part.image_url.url))
        elif isinstance(part, FileContent):
            file = part.file
            parts.extend(file_parts(file.filename, file.file_data, file.file_id, None))
        else:
            parts.extend(_other_parts(part, where))
    return parts


def _assistant_text(content: Content | None, param: str) -> list[MessagePart]:
    """What an assistant wrote: text and refusals; anything else is only noted (providers take
    no images from the assistant)."""
    parts = content_parts(content, param)
    return [p if isinstance(p, TextPart) else TextPart(value=ASSISTANT_DATA_NOTE) for p in parts]


def _call_part(call: ToolCall, param: str) -> ToolCallPart:
    if call.type == "custom" and call.custom is not None:
        # A custom tool's call carries free text; the editor's calls carry an object
        # (tools.py offers custom tools with one string property `input`).
        return ToolCallPart(
            callId=call.id, name=call.custom.name, input={"input": call.custom.input}
        )
    if call.function is None:
        kind = "custom" if call.type == "custom" else "function"
        raise invalid_request(
            f"`{param}.{kind}` is required in a tool call of type {kind}.",
            param=f"{param}.{kind}",
            code="missing_required_parameter",
        )
    return ToolCallPart(
        callId=call.id, name=call.function.name, input=tool_input(call.function.arguments)
    )


class _Conversation:
    """The editor's messages as they are built: preamble (system text) first, then the rest."""

    def __init__(self) -> None:
        self.preamble: list[ChatMessage] = []
        self.messages: list[ChatMessage] = []
        self.answered = False  # an assistant message came already
        self.results_open = False  # the last message holds tool results: more may join it
        # Legacy `function_call`s waiting for their `function` message, by function name.
        self.legacy_calls: dict[str, list[str]] = {}

    def add(self, role: str, parts: list[MessagePart], *, results: bool = False) -> None:
        if not parts:
            return
        last = self.messages[-1] if self.messages else None
        if role == "assistant" and last is not None and last.role == "assistant":
            # Consecutive assistant messages read as one turn: tool calls split over two
            # still pair with the results after them.
            last.content.extend(parts)
        elif results and self.results_open and last is not None:
            last.content.extend(parts)
        else:
            editor_role: Literal["user", "assistant"] = (
                "assistant" if role == "assistant" else "user"
            )
            self.messages.append(ChatMessage(role=editor_role, content=parts))
        self.results_open = results
        self.answered = self.answered or role == "assistant"

    def system(self, message: SystemMessage, param: str) -> None:
        parts = content_parts(message.content, f"{param}.content")
        if not parts:
            return
        if self.answered:
            self.add("user", [TextPart(value=LABELS[message.role]), *parts])
        else:
            self.preamble.append(ChatMessage(role="user", content=parts))

    def assistant(self, message: AssistantMessage, param: str, index: int) -> None:
        parts = _assistant_text(message.content, f"{param}.content")
        if message.refusal:
            parts.append(TextPart(value=message.refusal))
        for number, call in enumerate(message.tool_calls or []):
            parts.append(_call_part(call, f"{param}.tool_calls[{number}]"))
        if message.function_call is not None:
            parts.append(self._legacy_call(message.function_call, index))
        self.add("assistant", parts)

    def _legacy_call(self, call: FunctionCall, index: int) -> ToolCallPart:
        call_id = f"function_call_{index}"
        self.legacy_calls.setdefault(call.name, []).append(call_id)
        return ToolCallPart(callId=call_id, name=call.name, input=tool_input(call.arguments))

    def tool(self, message: ToolMessage, param: str) -> None:
        parts = content_parts(message.content, f"{param}.content")
        content = [p for p in parts if isinstance(p, (TextPart, DataPart))]
        result = ToolResultPart(
            callId=message.tool_call_id, content=content or [TextPart(value="")]
        )
        self.add("tool", [result], results=True)

    def function(self, message: FunctionMessage) -> None:
        waiting = self.legacy_calls.get(message.name)
        call_id = waiting.pop(0) if waiting else f"function_{message.name}"
        result = ToolResultPart(callId=call_id, content=[TextPart(value=message.content or "")])
        self.add("tool", [result], results=True)


def to_chat_messages(messages: list[Message]) -> list[ChatMessage]:
    """The whole conversation, system text first, in the editor's shape (not yet paired)."""
    conversation = _Conversation()
    for index, message in enumerate(messages):
        param = f"messages[{index}]"
        if isinstance(message, SystemMessage):
            conversation.system(message, param)
        elif isinstance(message, AssistantMessage):
            conversation.assistant(message, param, index)
        elif isinstance(message, ToolMessage):
            conversation.tool(message, param)
        elif isinstance(message, FunctionMessage):
            conversation.function(message)
        else:
            conversation.add("user", content_parts(message.content, f"{param}.content"))
    return conversation.preamble + conversation.messages


def editor_messages(messages: list[Message]) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each tool call with its result."""
    return normalise_tool_history(to_chat_messages(messages))
