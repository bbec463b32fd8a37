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
from bridge.anthropic.protocol import MessagesRequest, SystemBlock
from bridge.core.backend import ChatMessage, MessagePart, TextPart
from bridge.core.history import normalise_tool_history

BILLING_HEADER = "x-anthropic-billing-header:"
SYSTEM_LABEL = "[System message]"


def _without_billing_header(text: str) -> str:
    if not text.lstrip().startswith(BILLING_HEADER):
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


def to_chat_messages(request: MessagesRequest) -> list[ChatMessage]:
    """The whole conversation, system text first, in the editor's shape."""
    system = [TextPart(value=text) for text in system_texts(request.system)]
    preamble: list[ChatMessage] = [ChatMessage(role="user", content=list(system))] if system else []
    conversation: list[ChatMessage] = []
    answered = False  # an assistant message came already
    for message in request.messages:
        parts: list[MessagePart] = content_parts(message.content, message.role)
        if not parts:
            continue
        last = conversation[-1] if conversation else None
        if message.role == "system":
            if answered:
                conversation.append(
                    ChatMessage(role="user", content=[TextPart(value=SYSTEM_LABEL), *parts])
                )
            else:
                preamble.append(ChatMessage(role="user", content=parts))
        elif message.role == "assistant" and last is not None and last.role == "assistant":
            # Anthropic reads consecutive turns of one role as one: tool calls split over two
            # assistant messages still pair with the results after them.
            last.content.extend(parts)
        else:
            conversation.append(ChatMessage(role=message.role, content=parts))
        answered = answered or message.role == "assistant"
    return preamble + conversation


def editor_messages(request: MessagesRequest) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each tool call with its result.

    The editor's providers reject a call without its result and a result without its call;
    `normalise_tool_history` turns those into labelled text instead.
    """
    return normalise_tool_history(to_chat_messages(request))
