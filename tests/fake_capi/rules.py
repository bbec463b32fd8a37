"""Rules of the fake: what a FAKE of GitHub Copilot's cloud (CAPI) refuses, as the real cloud
does (the real cloud cannot be reached here, so tests learn of these refusals from the fake).

Copilot's own chat repairs tool schemas before sending them (toolSchemaNormalizer.ts says CAPI
answers the unrepaired ones with a blank 400); requests through `vscode.lm` go as they are. So:
- per family, a tool schema CAPI refuses gets a blank 400 (headless_editor/copilot/schemas.py
  holds the rules: non-object schemas, top-level oneOf/anyOf/allOf/not/if/then/else, `required`
  naming undefined properties, arrays without `items`, the GPT-4 family's keywords and
  descriptions over 1,024 characters, Gemini type lists holding null);
- a tool result without its call, or a call without its results, gets the provider's 400
  (Anthropic: "unexpected `tool_use_id` found in `tool_result` blocks"; OpenAI: "No tool call
  found for function call output ...").
"""

from __future__ import annotations

from bridge.core.parts import ToolCallPart, ToolResultPart
from headless_editor.chat_types import ChatRequest
from headless_editor.copilot.schemas import tool_refusal


def schema_refusal(request: ChatRequest, family: str) -> str | None:
    """Why CAPI refuses a tool's schema (a blank 400), None when it takes them all."""
    for tool in request.tools:
        if not tool.inputSchema:
            continue
        problem = tool_refusal(tool, family)
        if problem is not None and problem != "tool description may not be empty":
            return f"{tool.name}: {problem}"
    return None


def pairing_refusal(request: ChatRequest, anthropic: bool) -> str | None:
    """The provider's message for unpaired tool calls and results (None when all pair up)."""
    pending: list[str] = []
    for index, message in enumerate(request.messages):
        results = [p.callId for p in message.content if isinstance(p, ToolResultPart)]
        for call_id in results:
            if call_id not in pending:
                return _orphan(call_id, index, anthropic)
            pending.remove(call_id)
        if pending:
            return _unanswered(pending, index, anthropic)
        pending = [p.callId for p in message.content if isinstance(p, ToolCallPart)]
    return _unanswered(pending, len(request.messages), anthropic) if pending else None


def _orphan(call_id: str, index: int, anthropic: bool) -> str:
    if anthropic:
        return (
            f"messages.{index}.content.0: unexpected `tool_use_id` found in `tool_result` "
            f"blocks: {call_id}. Each `tool_result` block must have a corresponding "
            "`tool_use` block in the previous message."
        )
    return f"No tool call found for function call output with call_id {call_id}."


def _unanswered(call_ids: list[str], index: int, anthropic: bool) -> str:
    ids = ", ".join(call_ids)
    if anthropic:
        return (
            f"messages.{index}: `tool_use` ids were found without `tool_result` blocks "
            f"immediately after: {ids}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message."
        )
    return (
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        f"to each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
    )
