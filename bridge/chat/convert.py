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
from collections.abc import Sequence

from bridge.chat.wire import (
    AssistantMessage,
    Content,
    ContentPart,
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
from bridge.core.errors import invalid_request
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part
from bridge.core.positions import Positions
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


def _listed_parts(content: Sequence[ContentPart | OtherContent], param: str) -> list[MessagePart]:
    parts: list[MessagePart] = []
    for index, part in enumerate(content):
        if type(part) is TextContent:
            if part.text:
                parts.append(TextPart(value=part.text))
        elif type(part) is RefusalContent:
            if part.refusal:
                parts.append(TextPart(value=part.refusal))
        elif type(part) is ImageContent:
            parts.append(image_part(part.image_url.url))
        elif type(part) is FileContent:
            file = part.file
            parts.extend(file_parts(file.filename, file.file_data, file.file_id, None))
        elif type(part) is OtherContent:  # only the exact path lets one through
            parts.extend(_other_parts(part, f"{param}[{index}]"))
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


def _legacy_call(
    call: FunctionCall, index: int, legacy_calls: dict[str, list[str]]
) -> ToolCallPart:
    call_id = f"function_call_{index}"
    legacy_calls.setdefault(call.name, []).append(call_id)
    return ToolCallPart(callId=call_id, name=call.name, input=tool_input(call.arguments))


def _function_result(
    message: FunctionMessage, legacy_calls: dict[str, list[str]]
) -> ToolResultPart:
    waiting = legacy_calls.get(message.name)
    call_id = waiting.pop(0) if waiting else f"function_{message.name}"
    return ToolResultPart(callId=call_id, content=[TextPart(value=message.content or "")])


def _listed_result(message: ToolMessage, index: int) -> ToolResultPart:
    parts = content_parts(message.content, f"messages[{index}].content")
    kept: list[TextPart | DataPart] = [
        p for p in parts if type(p) is TextPart or type(p) is DataPart
    ]
    return ToolResultPart(callId=message.tool_call_id, content=kept or [TextPart(value="")])


def to_chat_messages(messages: list[Message]) -> list[ChatMessage]:
    """The whole conversation, system text first, in the editor's shape (not yet paired).

    One pass; the shapes agents resend by the thousand (text content, function calls, text
    results) are built inline, anything else by the helpers above."""
    preamble: list[ChatMessage] = []
    out: list[ChatMessage] = []
    append = out.append
    last: ChatMessage | None = None  # out[-1]
    answered = False  # an assistant message came already
    results_open = False  # the last message holds tool results: more may join it
    # Legacy `function_call`s waiting for their `function` message, by function name.
    legacy_calls: dict[str, list[str]] = {}
    position = Positions()  # no loop counts: the few params named look theirs up
    for message in messages:
        parts: list[MessagePart]
        result: ToolResultPart | None = None
        if type(message) is ToolMessage:
            if type(message.content) is str:  # empty or not: one text part
                text = TextPart(value=message.content)
                result = ToolResultPart(callId=message.tool_call_id, content=[text])
            else:
                result = _listed_result(message, position(messages, message))
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
            content = message.content
            if type(content) is str:
                parts = [TextPart(value=content)] if content else []
            else:
                parts = _assistant_text(content, _param(position, messages, message))
            if message.refusal:
                parts.append(TextPart(value=message.refusal))
            calls = message.tool_calls
            if calls:
                for call in calls:
                    function = call.function
                    if call.custom is None and function is not None:
                        parts.append(
                            ToolCallPart(
                                callId=call.id,
                                name=function.name,
                                input=tool_input(function.arguments),
                            )
                        )
                    else:
                        index, number = position(messages, message), position(calls, call)
                        parts.append(_call_part(call, f"messages[{index}].tool_calls[{number}]"))
            if message.function_call is not None:
                index = position(messages, message)
                parts.append(_legacy_call(message.function_call, index, legacy_calls))
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
            content = message.content
            if type(content) is str:
                if not content:
                    continue
                parts = [TextPart(value=content)]
            else:
                parts = content_parts(content, _param(position, messages, message))
                if not parts:
                    continue
            last = ChatMessage(role="user", content=parts)
            append(last)
        elif isinstance(message, SystemMessage):  # a developer message too
            content = message.content
            if type(content) is str:  # no param to name (looking it up costs a pass)
                parts = [TextPart(value=content)] if content else []
            else:
                parts = content_parts(content, _param(position, messages, message))
            if not parts:
                continue
            if not answered:
                preamble.append(ChatMessage(role="user", content=parts))
                continue  # the preamble leaves the open tool results open
            label = TextPart(value=LABELS[message.role])
            last = ChatMessage(role="user", content=[label, *parts])
            append(last)
        results_open = False
    return preamble + out if preamble else out


def _param(position: Positions, messages: list[Message], message: Message) -> str:
    return f"messages[{position(messages, message)}].content"


def editor_messages(messages: list[Message]) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each tool call with its result."""
    return normalise_tool_history(to_chat_messages(messages))
