"""Messages content blocks -> the editor's message parts (pure functions).

Text, images (inline base64 only), tool calls and tool results map one to one. Thinking is
dropped (the editor takes no thinking in the history); documents become their text when they
have text; everything else becomes a short note, so the model knows something was there and
the request still goes through. `tool_reference` blocks (a tool search's answer) also load the
deferred tools they name: `loaded_tool_names` finds them for `tools.plan_tools`.
"""

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
from bridge.core.backend import DataPart, MessagePart, TextPart, ToolCallPart, ToolResultPart
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
            for ref in extra["content"].get("tool_references") or []:
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
