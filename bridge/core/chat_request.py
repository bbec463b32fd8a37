"""The editor's chat request, as every dialect builds it once its input is converted."""

from __future__ import annotations

from typing import Literal

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, ModelInfo, TextPart
from bridge.core.copilot.options import RequestOptions
from bridge.core.copilot.request import copilot_request
from bridge.core.structured_output import OutputFormat
from bridge.core.tool_count import check_tool_count

__all__ = ["RequestOptions", "editor_chat"]


def editor_chat(
    model: ModelInfo,
    messages: list[ChatMessage],
    tools: list[ChatTool],
    tool_mode: Literal["auto", "required"],
    options: RequestOptions,
    fmt: OutputFormat | None,
    justification: str,
) -> ChatRequest:
    """The request as Copilot takes it, a structured-output format as an instruction (no
    model option carries one through Copilot)."""
    check_tool_count(tools)  # Copilot throws above 128 tools: a clear 400 instead
    if fmt is not None:
        # First, with the other system-like text: the last message stays the client's.
        messages.insert(0, ChatMessage(role="user", content=[TextPart(value=fmt.instruction())]))
    return copilot_request(model, messages, tools, tool_mode, options, justification)
