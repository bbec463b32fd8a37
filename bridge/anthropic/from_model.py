"""The exact path's result (protocol.py's pydantic models) as the wire Structs the conversion
reads: field by field, so both paths end in one conversion.

Built by hand rather than with `msgspec.convert`: a block of a type the decoder does not know
becomes an `OtherBlock` with its other keys, and a `tool_reference` block with a string name
the same `ToolReferenceBlock` the decoder makes. Struct constructors check no types, so values
the exact path accepted (however deep) go through as they are.
"""

from __future__ import annotations

from typing import Any

from bridge.anthropic import protocol as p
from bridge.anthropic import wire as w


def _source(source: p.Source) -> w.Source:
    return w.Source(
        type=source.type,
        media_type=source.media_type,
        data=source.data,
        url=source.url,
        file_id=source.file_id,
        content=source.content,
    )


def _other(block: p.OtherBlock) -> w.ContentBlock:
    extra = dict(block.model_extra or {})
    if block.type == "tool_reference" and isinstance(extra.get("tool_name"), str):
        return w.ToolReferenceBlock(tool_name=extra["tool_name"])
    return w.OtherBlock(type=block.type, extra=extra)


def _block(block: Any) -> w.ContentBlock:
    if isinstance(block, p.TextBlock):
        return w.TextBlock(text=block.text)
    if isinstance(block, p.ToolUseBlock):
        return w.ToolUseBlock(id=block.id, name=block.name, input=block.input)
    if isinstance(block, p.ToolResultBlock):
        content = block.content
        return w.ToolResultBlock(
            tool_use_id=block.tool_use_id,
            content=content if isinstance(content, str) else [_block(b) for b in content],
            is_error=block.is_error,
        )
    if isinstance(block, p.ImageBlock):
        return w.ImageBlock(source=_source(block.source))
    if isinstance(block, p.DocumentBlock):
        return w.DocumentBlock(
            source=_source(block.source), title=block.title, context=block.context
        )
    if isinstance(block, p.ThinkingBlock):
        if block.type == "thinking":
            return w.ThinkingBlock(thinking=block.thinking, signature=block.signature)
        return w.RedactedThinkingBlock(data=block.data)
    assert isinstance(block, p.OtherBlock)  # the union's last kind
    return _other(block)


def _content(content: p.Content) -> w.Content:
    return content if isinstance(content, str) else [_block(b) for b in content]


def from_model(request: p.MessagesRequest, body: dict[str, Any]) -> w.MessagesBody:
    """`request`, validated from `body` (whose ignored keys are kept for the debug log)."""
    system = request.system
    thinking, config = request.thinking, request.output_config
    return w.MessagesBody(
        model=request.model,
        messages=[w.Message(role=m.role, content=_content(m.content)) for m in request.messages],
        max_tokens=request.max_tokens,
        system=(
            system
            if system is None or isinstance(system, str)
            else [w.SystemBlock(type=b.type, text=b.text) for b in system]
        ),
        tools=request.tools,
        tool_choice=request.tool_choice,
        stop_sequences=request.stop_sequences,
        temperature=request.temperature,
        top_p=request.top_p,
        top_k=request.top_k,
        thinking=(
            None
            if thinking is None
            else w.ThinkingConfig(
                type=thinking.type,
                budget_tokens=thinking.budget_tokens,
                display=thinking.display,
            )
        ),
        output_config=(
            None if config is None else w.OutputConfig(effort=config.effort, format=config.format)
        ),
        output_format=request.output_format,
        stream=request.stream,
        metadata=body.get("metadata"),
        service_tier=body.get("service_tier"),
        context_management=body.get("context_management"),
        container=body.get("container"),
        mcp_servers=body.get("mcp_servers"),
    )
