"""The editor's chat request, as every dialect builds it once its input is converted."""

from __future__ import annotations

from typing import Any, Literal

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, TextPart
from bridge.core.structured_output import OutputFormat


def editor_chat(
    model_id: str,
    messages: list[ChatMessage],
    tools: list[ChatTool],
    tool_mode: Literal["auto", "required"],
    options: dict[str, Any],
    fmt: OutputFormat | None,
    justification: str,
) -> ChatRequest:
    """The request, with a structured-output format as a model option and an instruction."""
    if fmt is not None:
        options["responseFormat"] = fmt.model_option()
        # First, with the other system-like text: the last message stays the client's.
        messages.insert(0, ChatMessage(role="user", content=[TextPart(value=fmt.instruction())]))
    return ChatRequest(
        model=model_id,
        messages=messages,
        tools=tools,
        toolMode=tool_mode,
        modelOptions=options,
        justification=justification,
    )
