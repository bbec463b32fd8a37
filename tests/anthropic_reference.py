"""The Messages conversion as it was before the fast path (bridge/anthropic/blocks.py and
convert.py at commit 475ea18, over protocol.py's pydantic models), kept as the reference the
differential tests hold today's conversion to: same input, same chat request. One change: a
`tool_search_tool_result` whose `tool_references` is not a list loads nothing (a number there
raised a TypeError: a 500). Another (issue 42): an assistant's thinking block signed by the
provider goes back to it (bridge/core/thinking_tokens.py)."""

# ruff: noqa
# mypy: ignore-errors
from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from bridge.anthropic.protocol import (
    Content,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    OtherBlock,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from bridge.anthropic.protocol import MessagesRequest, SystemBlock
from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.history import normalise_tool_history
from bridge.core.history import call_as_text, result_as_parts
from bridge.core.images import file_parts, image_part

log = logging.getLogger(__name__)

Role = Literal["user", "assistant", "system"]
_SHOWN_CHARS = 200  # of a URL quoted in a note
TOOL_ERROR_LABEL = "[The tool reported an error:]"


def _shown(url: str) -> str:
    return url if len(url) <= _SHOWN_CHARS else url[:_SHOWN_CHARS] + "..."


def image_parts(source: Source) -> list[MessagePart]:
    """An image block: image data when inline and readable, else a note saying why not."""
    if source.type == "base64" and isinstance(source.data, str):
        media = source.media_type or "application/octet-stream"
        return [image_part(f"data:{media};base64,{source.data}")]
    if source.type == "url" and source.url:
        where = _shown(source.url)
    else:
        where = source.file_id or f"a {source.type!r} source"
    return [
        TextPart(
            value=f"[image not included: {where} (the editor takes only inline base64 images)]"
        )
    ]


def _source_text(items: Any) -> str:
    """The text of a `content` source: a string, or text blocks (other blocks are noted)."""
    if isinstance(items, str):
        return items
    texts: list[str] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            texts.append(item["text"])
        else:
            kind = item.get("type") if isinstance(item, dict) else type(item).__name__
            texts.append(f"[content of type {kind!r} not included]")
    return "\n".join(texts)


def document_parts(block: DocumentBlock) -> list[MessagePart]:
    """A document: its text under its title when it has text, else a note."""
    source, name = block.source, block.title or "document"
    context = f"\n{block.context}" if block.context else ""
    if source.type == "text" and isinstance(source.data, str):
        return [TextPart(value=f"[document {name}:]{context}\n{source.data}")]
    if source.type == "content":
        return [TextPart(value=f"[document {name}:]{context}\n{_source_text(source.content)}")]
    if source.type == "base64" and isinstance(source.data, str):
        # Text and images are read from their bytes; PDFs and the like become a note.
        parts = file_parts(name, source.data, None, None)
        return [TextPart(value=context.lstrip("\n")), *parts] if context else parts
    where = _shown(source.url) if source.url else (source.file_id or f"a {source.type!r} source")
    return [
        TextPart(
            value=f"[document not included: {name} from {where} (the editor cannot fetch "
            "documents; send text or base64 data inline)]"
        )
    ]


def _other_parts(block: OtherBlock) -> list[MessagePart]:
    extra = block.model_extra or {}
    if block.type == "tool_reference" and isinstance(extra.get("tool_name"), str):
        return [TextPart(value=f"[tool {extra['tool_name']} loaded: it can be called now]")]
    if block.type == "search_result":
        title, where = extra.get("title") or "", extra.get("source") or ""
        body = _source_text(extra.get("content"))
        return [TextPart(value=f"[search result {title} ({where}):]\n{body}")]
    log.info("Content block of type %r the editor cannot take: a note instead", block.type)
    return [TextPart(value=f"[content of type {block.type!r} not included]")]


def result_content(block: ToolResultBlock) -> list[TextPart | DataPart]:
    """A tool result's content: its text and images, saying first when the tool failed."""
    parts: list[MessagePart] = []
    if isinstance(block.content, str):
        parts = [TextPart(value=block.content)] if block.content else []
    else:
        for inner in block.content:
            # A tool result holds no calls or results; thinking inside one is dropped too.
            if not isinstance(inner, (ToolUseBlock, ToolResultBlock)):
                parts.extend(block_parts(inner, "user"))
    kept = [p for p in parts if isinstance(p, (TextPart, DataPart))]
    if block.is_error:
        kept.insert(0, TextPart(value=TOOL_ERROR_LABEL))
    return kept or [TextPart(value="")]


def block_parts(block: ContentBlock, role: Role) -> list[MessagePart]:
    """One block of a message from `role` -> the editor's parts (none, one or more)."""
    if isinstance(block, TextBlock):
        return [TextPart(value=block.text)] if block.text else []
    if isinstance(block, ImageBlock):
        return image_parts(block.source)
    if isinstance(block, DocumentBlock):
        return document_parts(block)
    if isinstance(block, ThinkingBlock):
        return []
    if isinstance(block, ToolUseBlock):
        call = ToolCallPart(callId=block.id, name=block.name, input=block.input)
        # Only the assistant calls tools; elsewhere the call is kept readable as text.
        return [call] if role == "assistant" else [TextPart(value=call_as_text(call))]
    if isinstance(block, ToolResultBlock):
        result = ToolResultPart(callId=block.tool_use_id, content=result_content(block))
        return [result] if role == "user" else result_as_parts(result, f"sent as {role} content")
    return _other_parts(block)


def content_parts(content: Content, role: Role) -> list[MessagePart]:
    """A message's content (a string or blocks) -> the editor's parts."""
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    for block in content:
        if isinstance(block, ThinkingBlock) and block.type == "thinking" and role == "assistant":
            from bridge.core.thinking_tokens import from_signature

            thought = from_signature(block.signature or "", block.thinking or "", len(parts))
            parts.extend([thought] if thought is not None else [])
            continue
        parts.extend(block_parts(block, role))
    return parts


def _references(block: ContentBlock) -> Iterator[str]:
    """The tool names one block loads: `tool_reference` blocks, in a tool result (a client's
    tool search) or in a `tool_search_tool_result` (Anthropic's server-side search)."""
    if isinstance(block, ToolResultBlock) and not isinstance(block.content, str):
        for inner in block.content:
            yield from _references(inner)
    elif isinstance(block, OtherBlock):
        extra = block.model_extra or {}
        if block.type == "tool_reference" and isinstance(extra.get("tool_name"), str):
            yield extra["tool_name"]
        elif block.type == "tool_search_tool_result" and isinstance(extra.get("content"), dict):
            # The one change: only a list is read (a number there was a TypeError, a 500).
            refs = extra["content"].get("tool_references")
            for ref in refs if isinstance(refs, list) else []:
                if isinstance(ref, dict) and isinstance(ref.get("tool_name"), str):
                    yield ref["tool_name"]


def loaded_tool_names(messages: Iterable[Message]) -> set[str]:
    """Every deferred tool the history has loaded so far (by a tool search's references)."""
    return {
        name
        for message in messages
        if not isinstance(message.content, str)
        for block in message.content
        for name in _references(block)
    }


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


def reference_plan(request: MessagesRequest, model):
    """plan_messages as it was, over the pydantic request (options and tools read the same
    attribute names from it as from the wire Structs)."""
    from bridge.anthropic.options import model_options, thinking_omitted, thinking_shown
    from bridge.anthropic.output_format import requested_format
    from bridge.anthropic.plan import JUSTIFICATION, MessagesPlan
    from bridge.anthropic.tools import plan_tools
    from bridge.core.chat_request import editor_chat
    from bridge.core.errors import invalid_request

    tools = plan_tools(request.tools, request.tool_choice, loaded_tool_names(request.messages))
    fmt = requested_format(request)
    messages = editor_messages(request)
    if not messages:
        raise invalid_request(
            "The messages hold nothing the model can read.", param="messages", code="invalid_value"
        )
    chat = editor_chat(
        model, messages, tools.tools, tools.mode, model_options(request), fmt, JUSTIFICATION
    )
    return MessagesPlan(
        chat=chat,
        model=request.model,
        stream=bool(request.stream),
        stop_sequences=list(request.stop_sequences or []),
        thinking=thinking_shown(request),
        thinking_omitted=thinking_omitted(request),
        output_format=fmt,
    )
