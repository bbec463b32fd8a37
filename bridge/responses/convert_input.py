"""Responses input items -> the editor's chat messages (pure functions).

The editor has only user and assistant messages, so instructions, system and developer
messages become user messages placed first; system and developer messages that come after the
model's first answer stay where they are, labelled (as in the other dialects), so a
conversation that grows keeps its start (prompt caching). Tool calls of one turn go into one
assistant message and their results into one user message, or model providers reject the history.
Messages between Codex agents (`agent_message`) become user messages that say who wrote to
whom. A tool result whose call is nowhere in the input is a 400, as with OpenAI.
"""

from __future__ import annotations

import logging

import msgspec

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part, image_reference_note
from bridge.core.thinking_tokens import from_token
from bridge.core.tools import tool_input
from bridge.responses.compaction_codec import decode_summary
from bridge.responses.tool_search import SEARCH_TOOL_NAME, loaded_note
from bridge.responses.tools import NAMESPACE_SEPARATOR
from bridge.responses.wire import (
    AdditionalToolsItem,
    AgentMessageItem,
    AnyRequest,
    CompactionItem,
    Content,
    ContentPart,
    CustomToolCallItem,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    InputItem,
    MessageItem,
    ReasoningItem,
    SkippedItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
    as_body,
)

log = logging.getLogger(__name__)
_READ_ARGUMENTS = msgspec.json.Decoder().decode  # as tool_input reads them


def content_parts(content: Content) -> list[MessagePart]:
    """Message or tool-output content -> text and data parts."""
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    append = parts.append
    for part in content:
        text = part.text  # input_text, output_text, text, summary_text, ...
        if text is not None:
            if text:
                append(TextPart(value=text))
        else:
            parts.extend(_other_part(part))
    return parts


def _other_part(part: ContentPart) -> list[MessagePart]:
    if part.refusal is not None:
        return [TextPart(value=part.refusal)]
    if part.type == "input_image":
        return [
            image_part(part.image_url) if part.image_url else image_reference_note(part.file_id)
        ]
    if part.type == "input_file":
        return file_parts(part.filename, part.file_data, part.file_id, part.file_url)
    if part.encrypted_content is not None:
        # Codex puts an agent's task here; it is the plain text its model wrote.
        return [TextPart(value=part.encrypted_content)] if part.encrypted_content else []
    log.warning("Content part of type %r the editor cannot take: a note instead", part.type)
    # The model should know that something was there, as with images it cannot fetch.
    return [TextPart(value=f"[content of type {part.type!r} not included]")]


def _call_part(item: CustomToolCallItem) -> ToolCallPart:
    # The flat name the tool was offered under (`tools.plan_tools`).
    name = f"{item.namespace}{NAMESPACE_SEPARATOR}{item.name}" if item.namespace else item.name
    return ToolCallPart(callId=item.call_id, name=name, input={"input": item.input})


def _result_part(item: FunctionCallOutputItem | CustomToolCallOutputItem) -> ToolResultPart:
    output = item.output
    if type(output) is str:
        return ToolResultPart(callId=item.call_id, content=[TextPart(value=output)])
    content = [p for p in content_parts(output) if isinstance(p, (TextPart, DataPart))]
    return ToolResultPart(callId=item.call_id, content=content or [TextPart(value="")])


def search_call_part(item: ToolSearchCallItem) -> ToolCallPart | None:
    """A client-run tool search the model called (None for one OpenAI's servers ran)."""
    if item.execution != "client" or not item.call_id:
        return None
    arguments = item.arguments if isinstance(item.arguments, dict) else {}
    return ToolCallPart(callId=item.call_id, name=SEARCH_TOOL_NAME, input=arguments)


def search_result_part(item: ToolSearchOutputItem) -> ToolResultPart | None:
    """Its answer: which tools it loaded (they are offered as tools, `tools.plan_tools`)."""
    if item.execution != "client" or not item.call_id:
        return None
    return ToolResultPart(callId=item.call_id, content=[TextPart(value=loaded_note(item))])


def agent_message(item: AgentMessageItem) -> ChatMessage:
    """A message between Codex agents: who wrote to whom, then all of its text. One with no
    text (a notification) still says that much."""
    parts = content_parts(item.content) if item.content is not None else []
    who = f"from agent {item.author or 'unknown'} to {item.recipient or 'unknown'}"
    if not parts:
        return ChatMessage(role="user", content=[TextPart(value=f"[Message {who}, with no text]")])
    return ChatMessage(role="user", content=[TextPart(value=f"[Message {who}]"), *parts])


def orphan_output_error(index: int, call_id: str) -> ApiError:
    """What OpenAI answers for a tool result whose call is not in the input."""
    return ApiError(
        400,
        f"No tool call found for function call output with call_id {call_id}. Send the "
        "`function_call` (or `custom_tool_call`) item before its output.",
        param=f"input[{index}].call_id",
    )


def _first_orphan(items: list[InputItem], call_ids: set[str]) -> ApiError | None:
    """The 400 for the first tool result whose call is nowhere in the input (looked for
    only once the conversion found that there is one)."""
    for index, item in enumerate(items):
        if type(item) is FunctionCallOutputItem or type(item) is CustomToolCallOutputItem:
            call_id = item.call_id
        elif type(item) is ToolSearchOutputItem and (found := search_result_part(item)):
            call_id = found.callId
        else:
            continue
        if call_id not in call_ids:
            return orphan_output_error(index, call_id)
    return None


SYSTEM_LABELS = {"system": "[System message]", "developer": "[Developer message]"}
COMPACTION_PREAMBLE = "Summary of the earlier conversation (compacted):"


def compaction_message(item: CompactionItem) -> ChatMessage:
    """A compaction item's summary, back in the context where the compacted turns were."""
    summary = decode_summary(item.encrypted_content)  # checked readable before conversion
    return ChatMessage(role="user", content=[TextPart(value=f"{COMPACTION_PREAMBLE}\n\n{summary}")])


# What the last message built is, for merging: an assistant turn takes more text and calls;
# a user message of tool results only takes more results; any other message takes nothing.
_NONE, _ASSISTANT, _RESULTS = 0, 1, 2


def to_chat_messages(request: AnyRequest) -> list[ChatMessage]:
    """The whole conversation, system-like text first, in the editor's shape."""
    return paired_conversation(request)[0]


def paired_conversation(request: AnyRequest) -> tuple[list[ChatMessage], bool]:
    """(the conversation, whether `normalise_tool_history` would leave it as it is).

    The second is tracked on the way, at the cost of a comparison per call and result: every
    turn's calls answered, in call order, by the results that open the next message, each call
    id used once. A long agent history nearly always is; the normalising pass over it would
    cost more than the conversion (bridge/core/history.py `_paired_in_place`, turn by turn)."""
    body = as_body(request)
    preamble: list[ChatMessage] = []
    if body.instructions:
        preamble.append(ChatMessage(role="user", content=[TextPart(value=body.instructions)]))
    raw = body.input
    items: list[InputItem] = (
        raw if isinstance(raw, list) else [MessageItem(role="user", content=raw or "")]
    )

    messages: list[ChatMessage] = []
    add = messages.append
    last = _NONE
    last_content: list[MessagePart] = []  # the content of messages[-1], when last != _NONE
    answered = False  # the model has spoken: later system text stays in place
    call_ids: set[str] = set()
    result_ids: list[str] = []  # the call id of every tool result, in input order
    in_place = True  # normalise_tool_history would change nothing so far
    turn_calls: list[str] = []  # the call ids of the last assistant message, in order
    turn_answered = 0  # how many of them the results opening the next message answer, in order
    for item in items:
        # Most frequent first; `type(...) is` is one step where isinstance walks the MRO.
        call: ToolCallPart | None = None
        result: ToolResultPart | None = None
        if type(item) is FunctionCallItem:
            name = item.name
            if item.namespace:  # the flat name the tool was offered under (`tools.plan_tools`)
                name = f"{item.namespace}{NAMESPACE_SEPARATOR}{name}"
            arguments = item.arguments
            try:  # the usual arguments, a JSON object, read here; any other as tool_input does
                read = _READ_ARGUMENTS(arguments)
            except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
                read = None
            if type(read) is not dict:
                read = tool_input(arguments)
            call = ToolCallPart(callId=item.call_id, name=name, input=read)
        elif type(item) is FunctionCallOutputItem or type(item) is CustomToolCallOutputItem:
            result_ids.append(item.call_id)
            output = item.output
            if type(output) is str:
                result = ToolResultPart(callId=item.call_id, content=[TextPart(value=output)])
            else:
                result = _result_part(item)
        elif type(item) is MessageItem:
            content = item.content
            # The usual message, one text part, without the general walk.
            if type(content) is list and len(content) == 1 and content[0].text:
                parts: list[MessagePart] = [TextPart(value=content[0].text)]
            else:
                parts = content_parts(content)
                if not parts:
                    continue
            role = item.role
            if role == "assistant":
                # Text and tool calls of one turn, in any order, stay one assistant message.
                if last == _ASSISTANT:
                    last_content.extend(parts)
                else:
                    in_place &= turn_answered == len(turn_calls)  # the turn before: answered
                    turn_calls, turn_answered = [], 0
                    last_content = parts
                    add(ChatMessage(role="assistant", content=parts))
                    last, answered = _ASSISTANT, True
            elif role == "user":
                add(ChatMessage(role="user", content=parts))
                last = _NONE
            elif answered:
                # Where it was written, labelled: moved up to the preamble it would change
                # the start of every later prompt (and the provider's prompt cache with it).
                label = TextPart(value=SYSTEM_LABELS[role])
                add(ChatMessage(role="user", content=[label, *parts]))
                last = _NONE
            else:
                preamble.append(ChatMessage(role="user", content=parts))
            continue
        elif type(item) is ReasoningItem:
            thought = reasoning_part(item)
            if thought is None:
                continue  # not the provider's: nothing for the editor
            # The thought opens (or joins) the assistant turn it belongs to.
            if last == _ASSISTANT:
                last_content.append(thought)
            else:
                in_place &= turn_answered == len(turn_calls)
                turn_calls, turn_answered = [], 0
                last_content = [thought]
                add(ChatMessage(role="assistant", content=last_content))
                last, answered = _ASSISTANT, True
            continue
        elif type(item) is AdditionalToolsItem:
            continue  # tools are offered (`tools.plan_request_tools`)
        elif type(item) is CustomToolCallItem:
            call = _call_part(item)
        elif type(item) is AgentMessageItem:
            add(agent_message(item))
            last = _NONE
            continue
        elif type(item) is CompactionItem:
            add(compaction_message(item))
            last = _NONE
            continue
        elif type(item) is ToolSearchCallItem:
            call = search_call_part(item)
            if call is None:
                continue
        elif type(item) is ToolSearchOutputItem:
            result = search_result_part(item)
            if result is None:
                continue
            result_ids.append(result.callId)
        else:
            if isinstance(item, SkippedItem):
                kind = item.item_type or str(type(item).__struct_config__.tag)
                log.warning("Skipping input item of type %r the editor cannot take", kind)
            continue
        if result is not None:
            # A tool result: into the results message being written, or a new one. In place
            # when that message opens right after the calls and this answers the next of them.
            if last == _RESULTS:
                last_content.append(result)
            else:
                in_place &= last == _ASSISTANT
                last_content = [result]
                add(ChatMessage(role="user", content=last_content))
                last = _RESULTS
            if turn_answered < len(turn_calls) and turn_calls[turn_answered] == result.callId:
                turn_answered += 1
            else:
                in_place = False
            continue
        assert call is not None  # every other branch above set one or continued
        # A tool call: into the assistant turn being written, or a new one.
        if call.callId in call_ids:
            in_place = False  # an id used again: normalising gives it a suffix or drops it
        call_ids.add(call.callId)
        if last == _ASSISTANT:
            last_content.append(call)
        else:
            in_place &= turn_answered == len(turn_calls)
            turn_calls, turn_answered = [], 0
            last_content = [call]
            add(ChatMessage(role="assistant", content=last_content))
            last, answered = _ASSISTANT, True
        turn_calls.append(call.callId)
    orphan = None if call_ids.issuperset(result_ids) else _first_orphan(items, call_ids)
    if orphan is not None:
        raise orphan
    in_place &= turn_answered == len(turn_calls)
    return preamble + messages, in_place


def reasoning_part(item: ReasoningItem) -> ThinkingPart | None:
    """A reasoning item the bridge gave out with the provider's thought (`encrypted_content`
    a thinking_tokens token) as that thought; None for any other."""
    if not item.encrypted_content:
        return None
    texts = item.summary or item.content or []
    return from_token(item.encrypted_content, "".join(t.text for t in texts))


def editor_messages(request: AnyRequest) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, its tool history made pairable.

    The editor's providers reject a call without its result and a result without its call.
    """
    messages, in_place = paired_conversation(request)
    return messages if in_place else normalise_tool_history(messages)
