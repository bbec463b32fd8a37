"""One request in any of the bridge's four dialects, streamed or not, over plain HTTP, and what
came back in the terms every dialect shares: the status, the answer's text, how it ended, the
usage, or the error. Every stream is checked against its dialect's schema and rules on the way
(spec_validation, anthropic_validation, chat_validation, gemini_validation), so a test that
compares dialects compares valid answers only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import anthropic_validation
import chat_validation
import gemini_validation
import spec_validation
from plain_http import Reply, post

Dialect = Literal["responses", "chat", "messages", "gemini"]
DIALECTS: tuple[Dialect, ...] = ("responses", "chat", "messages", "gemini")
# How an answer ended, in each dialect's own words -> one word.
_FINISH = {
    "responses": {"completed": "stop", "max_output_tokens": "length", "content_filter": "filter"},
    "chat": {"stop": "stop", "length": "length", "tool_calls": "tool", "content_filter": "filter"},
    "messages": {
        "end_turn": "stop",
        "stop_sequence": "stop",
        "max_tokens": "length",
        "tool_use": "tool",
        "refusal": "filter",
    },
    "gemini": {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "filter"},
}


@dataclass
class Outcome:
    dialect: Dialect
    status: int
    reply: Reply
    text: str = ""
    finish: str = ""  # stop, length, tool, filter; "" when it failed
    usage: dict[str, int] = field(default_factory=dict)  # input, output, cached
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    error: dict[str, Any] | None = None  # the error body (or the stream's error event)
    streamed_before_error: bool = False  # a stream that began, then failed

    def __str__(self) -> str:
        return f"{self.dialect} {self.status}: {self.reply.text[:3000]}"


def body_for(
    dialect: Dialect,
    model: str,
    text: str,
    *,
    max_tokens: int | None = None,
    effort: str | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A one-message request in `dialect`; `tools` are (name, description, JSON schema)
    dicts turned into each dialect's own tool shape."""
    tools = tools or []
    if dialect == "responses":
        body: dict[str, Any] = {"model": model, "input": text}
        if max_tokens is not None:
            body["max_output_tokens"] = max_tokens
        if effort is not None:
            body["reasoning"] = {"effort": effort}
        if tools:
            body["tools"] = [{"type": "function", **t} for t in tools]
        return body
    if dialect == "chat":
        body = {"model": model, "messages": [{"role": "user", "content": text}]}
        if max_tokens is not None:
            body["max_completion_tokens"] = max_tokens
        if effort is not None:
            body["reasoning_effort"] = effort
        if tools:
            body["tools"] = [
                {"type": "function", "function": {**t, "parameters": t["parameters"]}}
                for t in tools
            ]
        return body
    if dialect == "messages":
        body = {
            "model": model,
            "max_tokens": max_tokens or 4096,
            "messages": [{"role": "user", "content": text}],
        }
        if effort is not None:
            body["output_config"] = {"effort": effort}
        if tools:
            body["tools"] = [
                {
                    "name": t["name"],
                    "description": t["description"],
                    "input_schema": t["parameters"],
                }
                for t in tools
            ]
        return body
    body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    config: dict[str, Any] = {}
    if max_tokens is not None:
        config["maxOutputTokens"] = max_tokens
    if effort is not None:
        config["thinkingConfig"] = {"thinkingLevel": effort}
    if config:
        body["generationConfig"] = config
    if tools:
        body["tools"] = [
            {
                "functionDeclarations": [
                    {
                        "name": t["name"],
                        "description": t["description"],
                        "parameters": t["parameters"],
                    }
                    for t in tools
                ]
            }
        ]
    return body


def path_for(dialect: Dialect, model: str, stream: bool) -> str:
    """The route below the bridge's root (`http://host:port`)."""
    if dialect == "responses":
        return "/v1/responses"
    if dialect == "chat":
        return "/v1/chat/completions"
    if dialect == "messages":
        return "/v1/messages"
    verb = "streamGenerateContent?alt=sse" if stream else "generateContent"
    return f"/v1beta/models/{model}:{verb}"


def call(
    root_url: str, dialect: Dialect, body: dict[str, Any], *, stream: bool, model: str = ""
) -> Outcome:
    """POSTs `body` (stream set as the dialect sets it) and reads the answer; `model` names the
    Gemini route's model (the others carry it in the body)."""
    sent = dict(body)
    if dialect == "chat" and stream:
        sent["stream_options"] = {"include_usage": True}
    if dialect != "gemini":
        sent["stream"] = stream
    reply = post(root_url + path_for(dialect, model or str(body.get("model")), stream), sent)
    outcome = Outcome(dialect, reply.status_code, reply)
    if reply.status_code != 200:
        outcome.error = reply.json()
        return outcome
    _READERS[dialect](outcome, reply.text, stream)
    return outcome


def _responses(outcome: Outcome, text: str, stream: bool) -> None:
    if stream:
        events = spec_validation.parse_sse(text)
        response = spec_validation.validate_stream(events)
        if response["status"] == "failed":
            outcome.error, outcome.streamed_before_error = response["error"], True
            return
    else:
        response = outcome.reply.json()
        spec_validation.validate_response(response)
    for item in response["output"]:
        if item["type"] == "message":
            outcome.text += "".join(c.get("text", "") for c in item["content"])
        elif item["type"] == "function_call":
            outcome.tool_calls.append((item["name"], item["arguments"]))
    reason = (response.get("incomplete_details") or {}).get("reason") or response["status"]
    outcome.finish = _FINISH["responses"].get(reason, reason)
    if outcome.tool_calls and outcome.finish == "stop":
        outcome.finish = "tool"
    usage = response.get("usage") or {}
    outcome.usage = {
        "input": usage.get("input_tokens", 0),
        "output": usage.get("output_tokens", 0),
        "cached": (usage.get("input_tokens_details") or {}).get("cached_tokens", 0),
    }


def _chat(outcome: Outcome, text: str, stream: bool) -> None:
    if stream:
        sse = chat_validation.parse_sse(text)
        try:
            completion = chat_validation.check_stream(sse.chunks, include_usage=True)
        except AssertionError:
            outcome.error = chat_validation.check_failed_stream(sse.chunks)
            outcome.streamed_before_error = True
            return
    else:
        completion = outcome.reply.json()
        chat_validation.validate_completion(completion)
    choice = completion["choices"][0]
    outcome.text = choice["message"].get("content") or ""
    for call_ in choice["message"].get("tool_calls") or []:
        outcome.tool_calls.append((call_["function"]["name"], call_["function"]["arguments"]))
    outcome.finish = _FINISH["chat"].get(choice["finish_reason"], choice["finish_reason"])
    usage = completion.get("usage") or {}
    outcome.usage = {
        "input": usage.get("prompt_tokens", 0),
        "output": usage.get("completion_tokens", 0),
        "cached": (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0),
    }


def _messages(outcome: Outcome, text: str, stream: bool) -> None:
    if stream:
        result = anthropic_validation.check_stream(anthropic_validation.parse_sse(text))
        if result.error is not None:
            outcome.error, outcome.streamed_before_error = result.error, True
            return
        assert result.message is not None
        message = result.message
    else:
        message = outcome.reply.json()
        anthropic_validation.validate_message(message)
    for block in message["content"]:
        if block["type"] == "text":
            outcome.text += block["text"]
        elif block["type"] == "tool_use":
            outcome.tool_calls.append((block["name"], block["input"]))
    reason = message["stop_reason"]
    outcome.finish = _FINISH["messages"].get(reason, reason)
    usage = message["usage"]
    outcome.usage = {
        "input": usage["input_tokens"],
        "output": usage["output_tokens"],
        "cached": usage.get("cache_read_input_tokens") or 0,
        "cache_write": usage.get("cache_creation_input_tokens") or 0,
    }


def _gemini(outcome: Outcome, text: str, stream: bool) -> None:
    if stream:
        chunks = gemini_validation.parse_sse(text).chunks
        try:
            answer = gemini_validation.check_stream(chunks)
        except AssertionError:
            outcome.error = gemini_validation.check_failed_stream(chunks)
            outcome.streamed_before_error = True
            return
    else:
        answer = outcome.reply.json()
        gemini_validation.validate_answer(answer)
    candidate = answer["candidates"][0]
    for part in (candidate.get("content") or {}).get("parts") or []:
        if "text" in part and not part.get("thought"):
            outcome.text += part["text"]
        if "functionCall" in part:
            outcome.tool_calls.append((part["functionCall"]["name"], part["functionCall"]["args"]))
    reason = candidate.get("finishReason", "")
    outcome.finish = _FINISH["gemini"].get(reason, reason)
    if outcome.tool_calls and outcome.finish == "stop":
        outcome.finish = "tool"
    usage = answer.get("usageMetadata") or {}
    outcome.usage = {
        "input": usage.get("promptTokenCount", 0),
        "output": usage.get("candidatesTokenCount", 0),
        "cached": usage.get("cachedContentTokenCount", 0),
    }


_READERS = {"responses": _responses, "chat": _chat, "messages": _messages, "gemini": _gemini}
