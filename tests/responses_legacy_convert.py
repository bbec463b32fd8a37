"""The Responses conversion as it was before the fast path (bridge/responses/convert_input.py at
commit 475ea18), over the exact path's pydantic models: the reference that
test_responses_fast_path.py compares the Struct conversion with. Not used by the bridge.
"""

from __future__ import annotations

import logging

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part, image_reference_note
from bridge.core.tools import tool_input
from bridge.responses.request import (
    AdditionalToolsItem,
    AgentMessageItem,
    CompactionItem,
    Content,
    ContentPart,
    CreateResponseRequest,
    CustomToolCallItem,
    CustomToolCallOutputItem,
    FunctionCallItem,
    FunctionCallOutputItem,
    MessageItem,
    SkippedItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
)
from bridge.responses.tool_search import SEARCH_TOOL_NAME, loaded_note
from bridge.responses.tools import NAMESPACE_SEPARATOR

log = logging.getLogger(__name__)


def content_parts(content: Content) -> list[MessagePart]:
    """Message or tool-output content -> text and data parts."""
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    for part in content:
        parts.extend(_one_part(part))
    return parts


def _one_part(part: ContentPart) -> list[MessagePart]:
    if part.text is not None:  # input_text, output_text, text, summary_text, ...
        return [TextPart(value=part.text)] if part.text else []
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


def _call_part(item: FunctionCallItem | CustomToolCallItem) -> ToolCallPart:
    # The flat name the tool was offered under (`tools.plan_tools`).
    name = f"{item.namespace}{NAMESPACE_SEPARATOR}{item.name}" if item.namespace else item.name
    if isinstance(item, CustomToolCallItem):
        return ToolCallPart(callId=item.call_id, name=name, input={"input": item.input})
    return ToolCallPart(callId=item.call_id, name=name, input=tool_input(item.arguments))


def _result_part(item: FunctionCallOutputItem | CustomToolCallOutputItem) -> ToolResultPart:
    content = [p for p in content_parts(item.output) if isinstance(p, (TextPart, DataPart))]
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
    return ToolResultPart(callId=item.call_id, content=[TextPart(value=loaded_note(item))])  # type: ignore[arg-type]


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


SYSTEM_LABELS = {"system": "[System message]", "developer": "[Developer message]"}
COMPACTION_PREAMBLE = "Summary of the earlier conversation (compacted):"


def compaction_message(item: CompactionItem) -> ChatMessage:
    """A compaction item's summary, back in the context where the compacted turns were."""
    return ChatMessage(
        role="user", content=[TextPart(value=f"{COMPACTION_PREAMBLE}\n\n{item.summary}")]
    )


class _Conversation:
    """The messages built so far, with the kinds of part the last one holds.

    Knowing those kinds makes each merge check one step: checking every part of the last
    message instead made 10,000 calls of one turn cost 50 million steps.
    """

    def __init__(self) -> None:
        self.messages: list[ChatMessage] = []
        self._last_kinds: set[type] | None = None  # None: not needed yet, so not gathered
        self.answered = False  # the model has spoken: later system text stays in place

    def add(self, message: ChatMessage) -> None:
        self.messages.append(message)
        self._last_kinds = None
        self.answered = self.answered or message.role == "assistant"

    def append(self, role: str, parts: list[MessagePart], merge_when: tuple[type, ...]) -> None:
        """Add parts as a new message, or into the previous one when it is of the same kind."""
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == role and last.content:
            if self._last_kinds is None:
                self._last_kinds = {type(part) for part in last.content}
            if all(issubclass(kind, merge_when) for kind in self._last_kinds):
                last.content.extend(parts)
                self._last_kinds.update(type(part) for part in parts)
                return
        self.add(ChatMessage(role="user" if role == "user" else "assistant", content=parts))


def legacy_to_chat_messages(request: CreateResponseRequest) -> list[ChatMessage]:
    """The whole conversation, system-like text first, in the editor's shape."""
    preamble: list[ChatMessage] = []
    if request.instructions:
        preamble.append(ChatMessage(role="user", content=[TextPart(value=request.instructions)]))
    items = (
        request.input
        if isinstance(request.input, list)
        else [MessageItem(role="user", content=request.input)]
    )

    conversation = _Conversation()
    call_ids: set[str] = set()
    outputs: list[tuple[int, str]] = []  # (input index, call id) of every tool result
    for index, item in enumerate(items):
        if isinstance(item, MessageItem):
            parts = content_parts(item.content)
            if not parts:
                continue
            if item.role in ("system", "developer") and conversation.answered:
                # Where it was written, labelled: moved up to the preamble it would change
                # the start of every later prompt (and the provider's prompt cache with it).
                label = TextPart(value=SYSTEM_LABELS[item.role])
                conversation.add(ChatMessage(role="user", content=[label, *parts]))
            elif item.role in ("system", "developer"):
                preamble.append(ChatMessage(role="user", content=parts))
            elif item.role == "assistant":
                # Text and tool calls of one turn, in any order, stay one assistant message.
                conversation.append(
                    "assistant", parts, merge_when=(TextPart, ToolCallPart, DataPart)
                )
            else:
                conversation.add(ChatMessage(role="user", content=parts))
        elif isinstance(item, (FunctionCallItem, CustomToolCallItem)):
            call_ids.add(item.call_id)
            conversation.append(
                "assistant",
                [_call_part(item)],
                merge_when=(TextPart, ToolCallPart, DataPart),
            )
        elif isinstance(item, (FunctionCallOutputItem, CustomToolCallOutputItem)):
            outputs.append((index, item.call_id))
            conversation.append("user", [_result_part(item)], merge_when=(ToolResultPart,))
        elif isinstance(item, AgentMessageItem):
            conversation.add(agent_message(item))
        elif isinstance(item, CompactionItem):
            conversation.add(compaction_message(item))
        elif isinstance(item, ToolSearchCallItem):
            call = search_call_part(item)
            if call is not None:
                call_ids.add(call.callId)
                conversation.append(
                    "assistant", [call], merge_when=(TextPart, ToolCallPart, DataPart)
                )
        elif isinstance(item, ToolSearchOutputItem):
            result = search_result_part(item)
            if result is not None:
                outputs.append((index, result.callId))
                conversation.append("user", [result], merge_when=(ToolResultPart,))
        elif isinstance(item, AdditionalToolsItem):
            continue  # offered to the editor as tools (`tools.plan_request_tools`)
        elif isinstance(item, SkippedItem) and item.type != "reasoning":
            log.warning("Skipping input item of type %r the editor cannot take", item.type)
    for index, call_id in outputs:
        if call_id not in call_ids:
            raise orphan_output_error(index, call_id)
    return preamble + conversation.messages


def legacy_editor_messages(request: CreateResponseRequest) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, its tool history made pairable.

    The editor's providers reject a call without its result and a result without its call.
    """
    return normalise_tool_history(legacy_to_chat_messages(request))
