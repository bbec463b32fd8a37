"""The editor's chat request, as every dialect builds it once its input is converted."""

from __future__ import annotations

from typing import Any, Literal

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, TextPart
from bridge.core.structured_output import OutputFormat
from bridge.core.tool_count import check_tool_count


def model_options(
    *,
    max_output_tokens: int | None,
    temperature: float | None,
    top_p: float | None,
    reasoning_effort: str | None,
) -> dict[str, Any]:
    """The editor's model options every dialect maps; what the client did not give is left
    out (the editor's model then uses its own default)."""
    given = {
        "maxOutputTokens": max_output_tokens,
        "temperature": temperature,
        "topP": top_p,
        "reasoningEffort": reasoning_effort,
    }
    return {name: value for name, value in given.items() if value is not None}


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
    check_tool_count(tools)  # Copilot throws above 128 tools: a clear 400 instead
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
