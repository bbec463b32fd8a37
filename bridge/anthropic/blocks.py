"""Messages content blocks -> the editor's message parts (pure functions over wire.py's Structs).

Text, images (inline base64 only), tool calls and tool results map one to one. An assistant's
thinking block goes back to the editor when its signature is the provider's (thinking_tokens.py;
the bridge's made-up signatures and redacted thinking are dropped); documents become their
text when they have text; everything else becomes a short note, so the model knows something
was there and the request still goes through. `tool_reference` blocks (a tool search's answer)
also load the deferred tools they name: the conversion adds them to `loaded` for
`tools.plan_tools`.

A history is thousands of blocks: they are told apart by `type(block) is ...`, the common
kinds first, and each becomes its parts without any copy in between.
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from bridge.anthropic.web_search import history_text
from bridge.anthropic.wire import (
    Content,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    OtherBlock,
    RedactedThinkingBlock,
    Source,
    TextBlock,
    ThinkingBlock,
    ToolReferenceBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from bridge.core.backend import DataPart, MessagePart, TextPart, ToolCallPart, ToolResultPart
from bridge.core.history import call_as_text, result_as_parts
from bridge.core.images import file_parts, image_part
from bridge.core.thinking_tokens import from_signature

log = logging.getLogger(__name__)

Role = Literal["user", "assistant", "system"]
_SHOWN_CHARS = 200  # of a URL quoted in a note
TOOL_ERROR_LABEL = "[The tool reported an error:]"


def _shown(url: str) -> str:
    return url if len(url) <= _SHOWN_CHARS else url[:_SHOWN_CHARS] + "..."


def image_parts(source: Source) -> list[TextPart | DataPart]:
    """An image block: image data when inline and readable, else a note saying why not."""
    if source.type == "base64" and isinstance(source.data, str):
        media = source.media_type or "application/octet-stream"
        part = image_part(f"data:{media};base64,{source.data}")
        assert isinstance(part, (TextPart, DataPart))  # image data or a note
        return [part]
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


def document_parts(block: DocumentBlock) -> list[TextPart | DataPart]:
    """A document: its text under its title when it has text, else a note."""
    source, name = block.source, block.title or "document"
    context = f"\n{block.context}" if block.context else ""
    if source.type == "text" and isinstance(source.data, str):
        return [TextPart(value=f"[document {name}:]{context}\n{source.data}")]
    if source.type == "content":
        return [TextPart(value=f"[document {name}:]{context}\n{_source_text(source.content)}")]
    if source.type == "base64" and isinstance(source.data, str):
        # Text and images are read from their bytes; PDFs and the like become a note.
        parts = [
            p
            for p in file_parts(name, source.data, None, None)
            if isinstance(p, TextPart | DataPart)
        ]
        return [TextPart(value=context.lstrip("\n")), *parts] if context else parts
    where = _shown(source.url) if source.url else (source.file_id or f"a {source.type!r} source")
    return [
        TextPart(
            value=f"[document not included: {name} from {where} (the editor cannot fetch "
            "documents; send text or base64 data inline)]"
        )
    ]


def _other_parts(block: OtherBlock) -> list[TextPart | DataPart]:
    extra = block.extra
    if block.type == "search_result":
        title, where = extra.get("title") or "", extra.get("source") or ""
        body = _source_text(extra.get("content"))
        return [TextPart(value=f"[search result {title} ({where}):]\n{body}")]
    if block.type in ("server_tool_use", "web_search_tool_result"):
        return [TextPart(value=history_text(block.type, extra))]  # web_search.py
    log.info("Content block of type %r the editor cannot take: a note instead", block.type)
    return [TextPart(value=f"[content of type {block.type!r} not included]")]


def _loaded_note(block: ToolReferenceBlock, loaded: set[str]) -> list[TextPart | DataPart]:
    loaded.add(block.tool_name)
    return [TextPart(value=f"[tool {block.tool_name} loaded: it can be called now]")]


def add_references(block: ContentBlock, loaded: set[str]) -> None:
    """The tool names a block loads without becoming parts of its own: those in a tool result
    nested in a tool result, and Anthropic's server-side `tool_search_tool_result`."""
    if type(block) is ToolReferenceBlock:
        loaded.add(block.tool_name)
    elif type(block) is ToolResultBlock and type(block.content) is list:
        for inner in block.content:
            add_references(inner, loaded)
    elif type(block) is OtherBlock and block.type == "tool_search_tool_result":
        found = block.extra.get("content")
        refs = found.get("tool_references") if isinstance(found, dict) else None
        for ref in refs if isinstance(refs, list) else []:
            if isinstance(ref, dict) and isinstance(ref.get("tool_name"), str):
                loaded.add(ref["tool_name"])


def rare_parts(block: ContentBlock, loaded: set[str]) -> list[TextPart | DataPart]:
    """Images, documents, tool references and blocks the editor cannot take."""
    if type(block) is ImageBlock:
        return image_parts(block.source)
    if type(block) is DocumentBlock:
        return document_parts(block)
    if type(block) is ToolReferenceBlock:
        return _loaded_note(block, loaded)
    if type(block) is OtherBlock:
        add_references(block, loaded)
        return _other_parts(block)
    return []  # thinking


def result_content(block: ToolResultBlock, loaded: set[str]) -> list[TextPart | DataPart]:
    """A tool result's content: its text and images, saying first when the tool failed."""
    content = block.content
    parts: list[TextPart | DataPart]
    if isinstance(content, str):
        parts = [TextPart(value=content)] if content else []
    else:
        parts = []
        for inner in content:
            if type(inner) is TextBlock:
                if inner.text:
                    parts.append(TextPart(value=inner.text))
            elif type(inner) is ToolResultBlock or type(inner) is ToolUseBlock:
                # A tool result holds no calls or results (their references still load).
                add_references(inner, loaded)
            else:
                parts.extend(rare_parts(inner, loaded))
    if block.is_error:
        parts.insert(0, TextPart(value=TOOL_ERROR_LABEL))
    return parts or [TextPart(value="")]


def content_parts(content: Content, role: Role, loaded: set[str]) -> list[MessagePart]:
    """A message's content (a string or blocks) from `role` -> the editor's parts; the tools
    it loads are added to `loaded`."""
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    add = parts.append
    for block in content:
        if type(block) is TextBlock:
            if block.text:
                add(TextPart(value=block.text))
        elif type(block) is ToolUseBlock:
            call = ToolCallPart(callId=block.id, name=block.name, input=block.input)
            # Only the assistant calls tools; elsewhere the call is kept readable as text.
            add(call if role == "assistant" else TextPart(value=call_as_text(call)))
        elif type(block) is ToolResultBlock:
            text = block.content
            if isinstance(text, str) and not block.is_error:  # the usual result: its text
                result = ToolResultPart(callId=block.tool_use_id, content=[TextPart(value=text)])
            else:
                result = ToolResultPart(
                    callId=block.tool_use_id, content=result_content(block, loaded)
                )
            if role == "user":
                add(result)
            else:
                parts.extend(result_as_parts(result, f"sent as {role} content"))
        elif type(block) is ThinkingBlock:
            if role == "assistant":  # a thought Copilot signed goes back to it
                thought = from_signature(block.signature or "", block.thinking or "", len(parts))
                if thought is not None:
                    add(thought)
        elif type(block) is not RedactedThinkingBlock:
            parts.extend(rare_parts(block, loaded))
    return parts
