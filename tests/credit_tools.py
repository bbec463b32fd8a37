"""What a model request at the FAKE cloud spends on tools, system text and the bridge's own
additions, in the fake's tokens (tests/fake_capi/prompt_tokens.py), for the credits benchmark
(issue 42: "say what each kind of tool costs and when the bridge sends it").

The request is the one Copilot sent the fake cloud for an agent's turn: the client's tools as
the bridge offered them, Copilot's system prompt, the conversation. Tools are named by the
function name in any of the three API shapes (Messages, Responses, Chat Completions).
"""

from __future__ import annotations

import json
from typing import Any

from fake_capi import FakeCapi
from fake_capi.prompt_tokens import Prompt

from bridge.core.turn_notes import HEADER

# The tool Claude Code 2.1.330 marks `defer_loading` (its deferred tools stand behind ToolSearch).
DEFERRED = "DeferredToolPlaceholder"


def tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return "?"
    inner = tool.get("function")
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        return str(inner["name"])
    return str(tool.get("name") or tool.get("type") or "?")


def tokens_of(kind: str, value: Any) -> int:
    prompt = Prompt()
    prompt.block(kind, value)
    return prompt.tokens


def agent_bodies(capi: FakeCapi, model: str, start: int = 0) -> list[dict[str, Any]]:
    """The bodies of the agent's model requests (those offering tools), oldest first."""
    return [
        r.body
        for r in capi.requests[start:]
        if isinstance(r.body, dict) and r.body.get("model") == model and r.body.get("tools")
    ]


def tool_costs(body: dict[str, Any]) -> list[tuple[str, int]]:
    """Each tool of the request with its tokens, in the order sent."""
    return [(tool_name(t), tokens_of("tool", t)) for t in body.get("tools") or []]


def has_turn_note(body: dict[str, Any]) -> bool:
    """Whether the bridge's "Instructions for this answer" note reached the cloud."""
    return HEADER in json.dumps(body)


def print_tool_costs(model: str, body: dict[str, Any]) -> None:
    """One `CREDIT-TOOL model name tokens` line per tool, for bench/credit_sessions.py."""
    print()
    for name, tokens in tool_costs(body):
        print(f"CREDIT-TOOL {model} {name} {tokens}")
