"""`messages` (wire.py's Structs) -> the editor's chat messages (pure functions).

The editor has only user and assistant messages. As in the other dialects, system and developer
text becomes user messages placed first; one that comes after the first assistant turn stays
where it is, as a labelled user message, so the model reads it at the point it was written
for. Tool messages become tool results in a user message; `normalise_tool_history` then pairs
each call with its result, or turns an unpaired one into labelled text (as for Anthropic).
Images come inline (`data:` URLs) or as a note; audio input is a 400 naming the part.

A coding agent resends thousands of messages a turn: the loop below dispatches on each
message's exact type and builds nothing but the editor's parts (an error's param is only
spelled out when it is raised).
"""

from __future__ import annotations

import logging

from bridge.chat.wire import (
    AssistantMessage,
    Content,
    ContentPart,
    FileContent,
    FunctionMessage,
    ImageContent,
    Message,
    OtherContent,
    RefusalContent,
    SystemMessage,
    TextContent,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError, invalid_request
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


def _listed_parts(content: list[ContentPart], param: str) -> list[MessagePart]:
    parts: list[MessagePart] = []
    for index, part in enumerate(content):
        kind = type(part)
        if kind is TextContent:
            if part.text:  # type: ignore[union-attr]
                parts.append(TextPart(value=part.text))  # type: ignore[union-attr]
        elif kind is RefusalContent:
            if part.refusal:  # type: ignore[union-attr]
                parts.append(TextPart(value=part.refusal))  # type: ignore[union-attr]
        elif kind is ImageContent:
            parts.append(image_part(part.image_url.url))  # type: ignore[union-attr]
        elif kind is FileContent:
            file = part.file  # type: ignore[union-attr]
            parts.extend(file_parts(file.filename, file.file_data, file.file_id, None))
        else:  # OtherContent: only the exact path lets one through
            parts.extend(_other_parts(part, f"{param}[{index}]"))  # type: ignore[arg-type]
    return parts


def content_parts(content: Content | None, param: str) -> list[MessagePart]:
    """A user, system or tool message's content (a string or parts) -> the editor's parts."""
    if content is None or isinstance(content, str):
        return [TextPart(value=content)] if content else []
    return _listed_parts(content, param)


def _assistant_text(content: Content | None, param: str) -> list[MessagePart]:
    """What an assistant wrote: text and refusals; anything else is only noted (providers take
    no images from the assistant)."""
    if content is None or isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts = _listed_parts(content, param)
    return [p if type(p) is TextPart else TextPart(value=ASSISTANT_DATA_NOTE) for p in parts]


def _missing_call(call: ToolCall, param: str) -> ApiError:
    kind = "custom" if call.type == "custom" else "function"
    return invalid_request(
        f"`{param}.{kind}` is required in a tool call of type {kind}.",
        param=f"{param}.{kind}",
        code="missing_required_parameter",
    )


def _call_parts(calls: list[ToolCall], index: int, parts: list[MessagePart]) -> None:
    """Each tool call of message `index`, appended to `parts`."""
    append = parts.append
    for number, call in enumerate(calls):
        custom = call.custom
        if custom is not None and call.type == "custom":
            # A custom tool's call carries free text; the editor's calls carry an object
            # (tools.py offers custom tools with one string property `input`).
            append(ToolCallPart(callId=call.id, name=custom.name, input={"input": custom.input}))
            continue
        function = call.function
        if function is None:
            raise _missing_call(call, f"messages[{index}].tool_calls[{number}]")
        append(
            ToolCallPart(callId=call.id, name=function.name, input=tool_input(function.arguments))
        )


def _assistant_parts(
    message: AssistantMessage, index: int, legacy_calls: dict[str, list[str]]
) -> list[MessagePart]:
    parts = _assistant_text(message.content, f"messages[{index}].content")
    if message.refusal:
        parts.append(TextPart(value=message.refusal))
    if message.tool_calls:
        _call_parts(message.tool_calls, index, parts)
    legacy = message.function_call
    if legacy is not None:
        call_id = f"function_call_{index}"
        legacy_calls.setdefault(legacy.name, []).append(call_id)
        parts.append(
            ToolCallPart(callId=call_id, name=legacy.name, input=tool_input(legacy.arguments))
        )
    return parts


def _function_result(
    message: FunctionMessage, legacy_calls: dict[str, list[str]]
) -> ToolResultPart:
    waiting = legacy_calls.get(message.name)
    call_id = waiting.pop(0) if waiting else f"function_{message.name}"
    return ToolResultPart(callId=call_id, content=[TextPart(value=message.content or "")])


def _tool_result(message: ToolMessage, index: int) -> ToolResultPart:
    content = message.content
    if isinstance(content, str):  # empty or not: one text part
        return ToolResultPart(callId=message.tool_call_id, content=[TextPart(value=content)])
    parts = _listed_parts(content, f"messages[{index}].content")
    kept: list[TextPart | DataPart] = [
        p for p in parts if type(p) is TextPart or type(p) is DataPart
    ]
    return ToolResultPart(callId=message.tool_call_id, content=kept or [TextPart(value="")])


def to_chat_messages(messages: list[Message]) -> list[ChatMessage]:
    """The whole conversation, system text first, in the editor's shape (not yet paired)."""
    preamble: list[ChatMessage] = []
    out: list[ChatMessage] = []
    append = out.append
    last: ChatMessage | None = None  # out[-1]
    answered = False  # an assistant message came already
    results_open = False  # the last message holds tool results: more may join it
    # Legacy `function_call`s waiting for their `function` message, by function name.
    legacy_calls: dict[str, list[str]] = {}
    for index, message in enumerate(messages):
        result: ToolResultPart | None = None
        if type(message) is ToolMessage:
            result = _tool_result(message, index)
        elif type(message) is FunctionMessage:
            result = _function_result(message, legacy_calls)
        if result is not None:
            if results_open and last is not None:
                last.content.append(result)
            else:
                last = ChatMessage(role="user", content=[result])
                append(last)
            results_open = True
            continue
        if type(message) is AssistantMessage:
            parts = _assistant_parts(message, index, legacy_calls)
            if not parts:
                continue
            if last is not None and last.role == "assistant":
                # Consecutive assistant messages read as one turn: tool calls split over two
                # still pair with the results after them.
                last.content.extend(parts)
            else:
                last = ChatMessage(role="assistant", content=parts)
                append(last)
            answered = True
        elif type(message) is UserMessage:
            parts = content_parts(message.content, f"messages[{index}].content")
            if not parts:
                continue
            last = ChatMessage(role="user", content=parts)
            append(last)
        elif isinstance(message, SystemMessage):  # a developer message too
            parts = content_parts(message.content, f"messages[{index}].content")
            if not parts:
                continue
            if not answered:
                preamble.append(ChatMessage(role="user", content=parts))
                continue  # the preamble leaves the open tool results open
            last = ChatMessage(role="user", content=[TextPart(value=LABELS[message.role]), *parts])
            append(last)
        results_open = False
    return preamble + out if preamble else out


def editor_messages(messages: list[Message]) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each tool call with its result."""
    return normalise_tool_history(to_chat_messages(messages))
