"""Tools as every dialect offers them to the editor and reads its calls back."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import msgspec

from bridge.core.backend import ChatTool

log = logging.getLogger(__name__)
_ARGUMENTS = msgspec.json.Decoder()


def first_of_each_name(tools: Iterable[ChatTool | None]) -> list[ChatTool]:
    """The tools (`tools[i]` of the request, None for one left out), first of each name:
    providers reject a request with two tools of one name."""
    found: dict[str, ChatTool] = {}
    for index, tool in enumerate(tools):
        if tool is None:
            continue
        if tool.name in found:
            log.warning(
                "Dropping tool %r at `tools[%d]`: a tool of that name came first", tool.name, index
            )
            continue
        found[tool.name] = tool
    return list(found.values())


def tool_input(arguments: str) -> dict[str, Any]:
    """Function-call arguments (a JSON string) -> the object the editor expects."""
    if not arguments.strip():
        return {}
    try:  # strictly (msgspec): a NaN or a lone surrogate here could not be sent to the editor
        value = _ARGUMENTS.decode(arguments)
    except (msgspec.DecodeError, UnicodeEncodeError, RecursionError):
        return {"arguments": arguments}  # keep what the model wrote, readable
    return value if isinstance(value, dict) else {"value": value}
