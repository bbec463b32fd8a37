"""The Response object of the Open Responses spec, as it stands before any output."""

from __future__ import annotations

import time
from typing import Any

from bridge.responses import request as exact
from bridge.responses import wire


def usage_object(
    input_tokens: int,
    output_tokens: int,
    reasoning_tokens: int = 0,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,  # part of input_tokens: OpenAI's usage has no field for it
    nano_credits: int | None = None,  # Copilot's bill: the ledger's, not the client's
) -> dict[str, Any]:
    del cache_write_tokens, nano_credits
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def _text_echo(text: dict[str, Any] | None) -> dict[str, Any]:
    echo = dict(text or {})
    fmt = echo.get("format")
    if not isinstance(fmt, dict):
        echo["format"] = {"type": "text"}
    elif fmt.get("type") == "json_schema":
        # The spec requires these two even though clients often leave them out.
        echo["format"] = {"description": None, "strict": False, **fmt}
    return echo


# The spec's effort enum has no "minimal" (OpenAI's API does); "low" is the closest it has.
_EFFORT_ECHO = {"minimal": "low"}
_EFFORTS = {"none", "low", "medium", "high", "xhigh"}
_SUMMARIES = {"auto", "concise", "detailed"}


def _reasoning_echo(reasoning: wire.ReasoningParam | exact.ReasoningParam) -> dict[str, Any]:
    effort = _EFFORT_ECHO.get(reasoning.effort or "", reasoning.effort)
    return {
        "effort": effort if effort in _EFFORTS else None,
        "summary": reasoning.summary if reasoning.summary in _SUMMARIES else None,
    }


def new_response(
    request: wire.AnyRequest,
    response_id: str,
    tools_echo: list[dict[str, Any]],
    tool_choice_echo: str | dict[str, Any],
) -> dict[str, Any]:
    """Every required field present; what we do not know or do not do is an explicit null."""
    reasoning = request.reasoning
    return {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "completed_at": None,
        "status": "in_progress",
        "incomplete_details": None,
        "model": request.model,
        "previous_response_id": None,
        "instructions": request.instructions,
        "output": [],
        "error": None,
        "tools": tools_echo,
        "tool_choice": tool_choice_echo,
        "truncation": request.truncation or "disabled",
        "parallel_tool_calls": True
        if request.parallel_tool_calls is None
        else request.parallel_tool_calls,
        "text": _text_echo(request.text),
        "top_p": 1.0 if request.top_p is None else request.top_p,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "top_logprobs": 0,
        "temperature": 1.0 if request.temperature is None else request.temperature,
        "reasoning": None if reasoning is None else _reasoning_echo(reasoning),
        "usage": None,
        "max_output_tokens": request.max_output_tokens,
        "max_tool_calls": request.max_tool_calls,
        "store": False,  # nothing is kept, whatever the client asked
        "background": False,
        "service_tier": "default",
        "metadata": request.metadata or {},
        "safety_identifier": request.safety_identifier,
        "prompt_cache_key": request.prompt_cache_key,
        "user": request.user,
    }
