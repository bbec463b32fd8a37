"""A `maestro/chat` request's params as JSON bytes, in one pass over the conversation.

A long conversation is most of what the bridge sends: 4,000 messages of history on every turn
of an agent session. `model_dump` followed by pygls's cattrs walk and `json.dumps` visited every
value three times in Python; pydantic's own model serializer is no quicker (its tagged-union
parts cost ~3 us a message). The parts' `__dict__` already is their wire shape (docs/protocol.md),
so plain dicts are built in one loop and pydantic-core's encoder writes them in one call.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import PydanticSerializationError, to_json

from bridge.core.backend import ChatMessage, ChatRequest, ChatTool, ToolResultPart
from bridge.core.strict_json import encode as strict_encode
from lsp.rpc import UnsendableMessage

# Written only where a number is not finite: then the strict encoder decides (it refuses them).
_NOT_FINITE = (b"NaN", b"Infinity")


def chat_params_json(chat_id: str, window: int, request: ChatRequest) -> bytes:
    """`{"chatId", "window", ...request}`, as `request.model_dump(exclude_none=True)` would
    give it; UnsendableMessage for what JSON cannot carry (NaN, Infinity, a lone surrogate)."""
    params: dict[str, Any] = {
        "chatId": chat_id,
        "window": window,
        "model": request.model,
        "messages": [_message(message) for message in request.messages],
        "tools": [_tool(tool) for tool in request.tools],
        "toolMode": request.toolMode,
        "modelOptions": request.modelOptions,
        "modelConfiguration": request.modelConfiguration,
    }
    if request.justification is not None:
        params["justification"] = request.justification
    return params_json(params)


def params_json(params: Any) -> bytes:
    """Plain JSON values as compact UTF-8 JSON, by pydantic-core (a 0.5 MB text to count:
    several times quicker than the json module); UnsendableMessage as `lsp.rpc` refuses."""
    try:
        data = to_json(params, inf_nan_mode="constants")
    except PydanticSerializationError as exc:  # a lone surrogate: not UTF-8
        raise UnsendableMessage(f"the message is not valid JSON ({exc})") from None
    if any(token in data for token in _NOT_FINITE):  # or just those words in some text
        try:
            data = strict_encode(params).encode()
        except ValueError as exc:
            raise UnsendableMessage(f"the message is not valid JSON ({exc})") from None
    return data


def _message(message: ChatMessage) -> dict[str, Any]:
    content = [
        _result(part) if type(part) is ToolResultPart else part.__dict__ for part in message.content
    ]
    if message.name is None:
        return {"role": message.role, "content": content}
    return {"role": message.role, "content": content, "name": message.name}


def _result(part: ToolResultPart) -> dict[str, Any]:
    return {**part.__dict__, "content": [inner.__dict__ for inner in part.content]}


def _tool(tool: ChatTool) -> dict[str, Any]:
    if tool.inputSchema is None:
        return {"name": tool.name, "description": tool.description}
    return tool.__dict__
