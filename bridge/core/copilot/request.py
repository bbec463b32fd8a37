"""The one step every dialect's editor request passes: a request GitHub Copilot accepts.

Copilot is what users reach through `vscode.lm`, and it is stricter than the Language Model
API's types say (docs/github-copilot.md). Each rule has its module here:
options.py (model options and configuration), tool_names.py (names and back), schemas.py
(input schemas per model family), required.py (`required` with several tools) and
messages.py (the conversation's parts).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Literal

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, ModelInfo
from bridge.core.copilot.messages import copilot_messages
from bridge.core.copilot.options import RequestOptions, model_configuration, model_options
from bridge.core.copilot.required import INSTRUCTION
from bridge.core.copilot.schemas import Family, normalised_tool
from bridge.core.copilot.tool_names import ToolNames
from bridge.core.turn_notes import with_turn_notes


def copilot_request(
    model: ModelInfo,
    messages: list[ChatMessage],
    tools: list[ChatTool],
    tool_mode: Literal["auto", "required"],
    options: RequestOptions,
    justification: str | None,
    notes: Sequence[str] = (),
) -> ChatRequest:
    """The editor's request for these messages, tools and options, as Copilot takes it;
    `notes` (instructions about this answer) close it, after the history (turn_notes.py).

    Raises ApiError 400 for what no Copilot model could answer (images to a model without
    image input)."""
    rebuild = partial(
        copilot_request,
        messages=messages,
        tools=tools,
        tool_mode=tool_mode,
        options=options,
        justification=justification,
        notes=notes,
    )
    names = ToolNames()
    family = Family.of(model.family or model.id)
    editor_tools = [_tool(tool, names, family) for tool in tools]
    required_by_instruction = tool_mode == "required" and len(editor_tools) > 1
    shaped = copilot_messages(messages, names, model.id, model.capabilities.imageInput)
    if required_by_instruction:
        notes = [*notes, INSTRUCTION]
        tool_mode = "auto"
    request = ChatRequest(
        model=model.id,
        messages=with_turn_notes(shaped, notes),
        tools=editor_tools,
        toolMode=tool_mode,
        modelOptions=model_options(options, model),
        modelConfiguration=model_configuration(options),
        justification=justification,
        clientToolNames=names.to_client,
        toolCallRequired=required_by_instruction,
    )
    request.rebuild_for = rebuild
    return request


def copilot_request_for(request: ChatRequest, model: ModelInfo) -> ChatRequest | None:
    """The same request shaped for another model (its family's schemas, its image input),
    from what the client sent; None for a request not built by `copilot_request`."""
    if request.rebuild_for is None:
        return None
    return request.rebuild_for(model)


def _tool(tool: ChatTool, names: ToolNames, family: Family) -> ChatTool:
    description, schema = normalised_tool(tool.description, tool.inputSchema, family)
    return ChatTool(name=names.editor(tool.name), description=description, inputSchema=schema)
