"""`POST /responses` bodies as a FAKE of GitHub Copilot's cloud (CAPI) reads them.

The real cloud cannot be reached here; this FAKE turns Copilot's OpenAI Responses body
(input items, instructions, function tools, reasoning, max_output_tokens...) into the
simulated model's ChatRequest (upstream.py). Reasoning items sent back are not read.
"""

from __future__ import annotations

from typing import Any

from bridge.core.parts import MessagePart, TextPart, ToolCallPart
from fake_capi.upstream import (
    BadBody,
    Conversation,
    Upstream,
    arguments,
    image_part,
    int_or_none,
    result_part,
    tool,
)
from headless_editor.chat_types import ChatRequest


def from_responses(body: dict[str, Any]) -> Upstream:
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    if not isinstance(items, list) or not items:
        raise BadBody("input must be a non-empty array or a string")
    talk = Conversation()
    system: list[str] = []
    if isinstance(body.get("instructions"), str):
        system.append(body["instructions"])
    pending: list[MessagePart] = []  # the assistant turn being built (text, then calls)
    for item in items:
        if not isinstance(item, dict):
            raise BadBody("an input item is not an object")
        kind = item.get("type", "message")
        if kind == "function_call":
            pending.append(
                ToolCallPart(
                    callId=str(item.get("call_id", "")),
                    name=str(item.get("name", "")),
                    input=arguments(item.get("arguments")),
                )
            )
            continue
        if kind == "tool_search_call":
            # Copilot sends a call of a client's tool search (Codex's `tool_search`) as the
            # Responses API's client-run tool search item.
            pending.append(
                ToolCallPart(
                    callId=str(item.get("call_id", "")),
                    name=TOOL_SEARCH,
                    input=arguments(item.get("arguments")),
                )
            )
            continue
        if kind == "message" and item.get("role") == "assistant":
            text = _text(item.get("content"))
            if text:
                pending.append(TextPart(value=text))
            continue
        if kind == "reasoning":
            continue
        talk.assistant(pending)
        pending = []
        if kind == "function_call_output":
            talk.user(result_part(str(item.get("call_id", "")), _output(item.get("output"))))
        elif kind == "tool_search_output":
            # ...and its result as the tools it loaded (Copilot parsed them from the text).
            talk.user(result_part(str(item.get("call_id", "")), _loaded(item.get("tools"))))
        elif kind == "message" and item.get("role") in ("system", "developer"):
            system.append(_text(item.get("content")))
        elif kind == "message" and item.get("role") == "user":
            for part in _parts(item.get("content")):
                talk.user(part)
        else:
            raise BadBody(f"unknown input item {kind!r}")
    talk.assistant(pending)
    tools = [
        tool(t.get("name"), t.get("description"), t.get("parameters"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "function"
    ]
    choice = body.get("tool_choice")
    required = isinstance(choice, dict) or choice == "required"
    request = ChatRequest(
        model=str(body.get("model", "")),
        messages=talk.messages,
        tools=tools,
        toolMode="required" if required else "auto",
    )
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
    thinking = isinstance(effort, str) and effort != "none"
    return Upstream(request, int_or_none(body.get("max_output_tokens")), thinking, system)


TOOL_SEARCH = "tool_search"


def _loaded(tools: Any) -> str:
    """A tool search's output as the model reads it: the names of the tools it loaded."""
    names = [str(t.get("name")) for t in tools or [] if isinstance(t, dict) and t.get("name")]
    return "Tools loaded (they can be called now): " + ", ".join(names)


def _output(output: Any) -> Any:
    if isinstance(output, list):
        return [
            {"text": b.get("text")} if b.get("type") == "input_text" else b
            for b in output
            if isinstance(b, dict)
        ]
    return output


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", ""))
            for p in content
            if isinstance(p, dict) and p.get("type") in ("input_text", "output_text")
        )
    return ""


def _parts(content: Any) -> list[MessagePart]:
    if isinstance(content, str):
        return [TextPart(value=content)] if content else []
    parts: list[MessagePart] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "input_text":
            parts.append(TextPart(value=str(block.get("text", ""))))
        elif block.get("type") == "input_image":
            image = image_part(str(block.get("image_url", "")))
            if image is not None:
                parts.append(image)
    return parts
