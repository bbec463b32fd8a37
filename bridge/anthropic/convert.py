"""`system` and `messages` -> the editor's chat messages (pure functions).

The editor has only user and assistant messages, so system text becomes user messages placed
first, as the Responses dialect does with instructions. Claude Code's first system line is a
billing header for Anthropic's servers, not for the model: it is dropped. Claude Code also
sends `{"role": "system"}` messages inside `messages`: before the first assistant turn they
join the system text; later ones stay where they are, as labelled user messages, so the
model reads them at the point of the conversation they were written for.
"""

from __future__ import annotations

from bridge.anthropic.blocks import content_parts
from bridge.anthropic.wire import MessagesBody, SystemBlock
from bridge.core.backend import ChatMessage, TextPart
from bridge.core.history import normalise_tool_history
from bridge.core.savings_off import off

BILLING_HEADER = "x-anthropic-billing-header:"
SYSTEM_LABEL = "[System message]"


def _without_billing_header(text: str) -> str:
    if not text.lstrip().startswith(BILLING_HEADER) or off("billing_header"):
        return text
    _, _, rest = text.lstrip().partition("\n")
    return rest


def system_texts(system: str | list[SystemBlock] | None) -> list[str]:
    """The request's system text, one string per block, without the billing header."""
    if system is None:
        return []
    texts = [system] if isinstance(system, str) else [block.text for block in system]
    if texts:
        texts[0] = _without_billing_header(texts[0])
    return [text for text in texts if text.strip()]


def converted(request: MessagesBody) -> tuple[list[ChatMessage], set[str]]:
    """The whole conversation, system text first, in the editor's shape; and the deferred
    tools its tool searches have loaded (by `tool_reference` blocks)."""
    system = [TextPart(value=text) for text in system_texts(request.system)]
    preamble: list[ChatMessage] = [ChatMessage(role="user", content=list(system))] if system else []
    conversation: list[ChatMessage] = []
    append = conversation.append
    loaded: set[str] = set()
    answered = False  # an assistant message came already
    for message in request.messages:
        role = message.role
        parts = content_parts(message.content, role, loaded)
        if not parts:
            continue
        if role == "assistant":
            if conversation and conversation[-1].role == "assistant":
                # Anthropic reads consecutive turns of one role as one: tool calls split over
                # two assistant messages still pair with the results after them.
                conversation[-1].content.extend(parts)
            else:
                append(ChatMessage(role="assistant", content=parts))
            answered = True
        elif role == "user":
            append(ChatMessage(role="user", content=parts))
        elif answered:
            append(ChatMessage(role="user", content=[TextPart(value=SYSTEM_LABEL), *parts]))
        else:
            preamble.append(ChatMessage(role="user", content=parts))
    return preamble + conversation, loaded


def to_chat_messages(request: MessagesBody) -> list[ChatMessage]:
    """The whole conversation, system text first, in the editor's shape."""
    return converted(request)[0]


def editor_messages(request: MessagesBody) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each tool call with its result.

    The editor's providers reject a call without its result and a result without its call;
    `normalise_tool_history` turns those into labelled text instead.
    """
    return normalise_tool_history(to_chat_messages(request))
