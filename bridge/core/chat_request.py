"""The editor's chat request, as every dialect builds it once its input is converted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, ModelInfo
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
    notes: Sequence[str] = (),
) -> ChatRequest:
    """The request as Copilot takes it, a structured-output format as an instruction (no
    model option carries one through Copilot). Instructions about this answer alone (`notes`,
    the format's) go after the history (bridge/core/turn_notes.py: the prompt's prefix
    stays what the previous turn sent, for the provider's prompt cache)."""
    check_tool_count(tools, model)  # Copilot throws above 128 tools: a clear 400 instead
    if fmt is not None:
        notes = [fmt.instruction(), *notes]
    return copilot_request(model, messages, tools, tool_mode, options, justification, notes)
