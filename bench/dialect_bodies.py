"""A conversation (bench/conversation.py) as the request body each agent sends.

The shapes follow the captures in tests/fixtures: Codex (Responses `input` items with
function_call / function_call_output pairs), Claude Code (Anthropic messages with tool_use /
tool_result blocks, the user's next text in the tool results' message), a Chat Completions
client (assistant messages with `tool_calls`, role `tool`) and Gemini CLI (contents with
functionCall / functionResponse parts). Each starts with a system prompt and two tools, as
an agent's requests do. Every request streams, from the model `sim-bench`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bench.conversation import Item, words

MODEL = "sim-bench"
SYSTEM = "You are a coding agent. " + words(200)  # ~1 KB, no digits
_SHELL_SCHEMA = {
    "type": "object",
    "properties": {"command": {"type": "string", "description": "The shell command to run."}},
    "required": ["command"],
}
_READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "description": "The file to read."}},
    "required": ["path"],
}
TOOLS = (
    ("shell", "Runs a shell command and returns its output.", _SHELL_SCHEMA),
    ("read_file", "Reads a file of the workspace.", _READ_SCHEMA),
)
Body = dict[str, Any]


def _arguments(item: Item) -> dict[str, str]:
    return {"command": item.text}


def call_id(dialect: str, number: int) -> str:
    if dialect == "messages":
        return f"toolu_bench{number:016x}"
    if dialect == "gemini":
        return f"shell_1795478373300_{number}"
    return f"call_bench{number:014x}"


def responses_body(items: list[Item]) -> Body:
    def one(item: Item) -> Body:
        if item.kind == "call":
            return {
                "type": "function_call",
                "call_id": call_id("responses", item.call),
                "name": "shell",
                "arguments": json.dumps(_arguments(item)),
            }
        if item.kind == "result":
            return {
                "type": "function_call_output",
                "call_id": call_id("responses", item.call),
                "output": item.text,
            }
        kind = "input_text" if item.kind == "user" else "output_text"
        return {
            "type": "message",
            "role": item.kind,
            "content": [{"type": kind, "text": item.text}],
        }

    tools = [
        {"type": "function", "name": n, "description": d, "strict": False, "parameters": s}
        for n, d, s in TOOLS
    ]
    return {
        "model": MODEL,
        "instructions": SYSTEM,
        "input": [one(item) for item in items],
        "tools": tools,
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "store": False,
        "stream": True,
        "prompt_cache_key": "bench-history",
    }


def _grouped(items: list[Item], role_of: Callable[[Item], str]) -> list[tuple[str, list[Item]]]:
    """Consecutive items of one role, as one message (the agents send them so)."""
    groups: list[tuple[str, list[Item]]] = []
    for item in items:
        role = role_of(item)
        if groups and groups[-1][0] == role:
            groups[-1][1].append(item)
        else:
            groups.append((role, [item]))
    return groups


def _side(item: Item) -> str:
    return "assistant" if item.kind in ("assistant", "call") else "user"


def anthropic_body(items: list[Item]) -> Body:
    def block(item: Item) -> Body:
        if item.kind == "call":
            return {
                "type": "tool_use",
                "id": call_id("messages", item.call),
                "name": "shell",
                "input": _arguments(item),
            }
        if item.kind == "result":
            return {
                "type": "tool_result",
                "tool_use_id": call_id("messages", item.call),
                "content": item.text,
                "is_error": False,
            }
        return {"type": "text", "text": item.text}

    messages = [
        {"role": role, "content": [block(item) for item in group]}
        for role, group in _grouped(items, _side)
    ]
    tools = [{"name": n, "description": d, "input_schema": s} for n, d, s in TOOLS]
    return {
        "model": MODEL,
        "max_tokens": 32000,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
        "tools": tools,
        "metadata": {"user_id": "bench-history"},
        "stream": True,
    }


def chat_body(items: list[Item]) -> Body:
    messages: list[Body] = [{"role": "system", "content": SYSTEM}]
    for item in items:
        if item.kind == "user":
            messages.append({"role": "user", "content": item.text})
        elif item.kind == "assistant":
            messages.append({"role": "assistant", "content": item.text})
        elif item.kind == "result":
            messages.append(
                {"role": "tool", "tool_call_id": call_id("chat", item.call), "content": item.text}
            )
        else:
            call = {
                "id": call_id("chat", item.call),
                "type": "function",
                "function": {"name": "shell", "arguments": json.dumps(_arguments(item))},
            }
            previous = messages[-1]
            if previous["role"] == "assistant" and "tool_calls" not in previous:
                previous["tool_calls"] = [call]  # the text and the call: one message
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    tools = [
        {"type": "function", "function": {"name": n, "description": d, "parameters": s}}
        for n, d, s in TOOLS
    ]
    return {"model": MODEL, "messages": messages, "tools": tools, "stream": True}


def gemini_body(items: list[Item]) -> Body:
    def part(item: Item) -> Body:
        if item.kind == "call":
            call = {"id": call_id("gemini", item.call), "name": "shell", "args": _arguments(item)}
            return {"functionCall": call}
        if item.kind == "result":
            response = {
                "id": call_id("gemini", item.call),
                "name": "shell",
                "response": {"output": item.text},
            }
            return {"functionResponse": response}
        return {"text": item.text}

    contents = [
        {"role": "model" if role == "assistant" else "user", "parts": [part(i) for i in group]}
        for role, group in _grouped(items, _side)
    ]
    declarations = [{"name": n, "description": d, "parametersJsonSchema": s} for n, d, s in TOOLS]
    return {
        "contents": contents,
        "systemInstruction": {"role": "user", "parts": [{"text": SYSTEM}]},
        "tools": [{"functionDeclarations": declarations}],
        "generationConfig": {"temperature": 1, "topP": 0.95},
    }


BUILDERS: dict[str, Callable[[list[Item]], Body]] = {
    "responses": responses_body,
    "messages": anthropic_body,
    "chat": chat_body,
    "gemini": gemini_body,
}


def encoded(dialect: str, items: list[Item], model: str = MODEL) -> bytes:
    """The body as the client sends it (compact JSON, UTF-8); Gemini names `model` in its path."""
    body = BUILDERS[dialect](items)
    if dialect != "gemini":
        body["model"] = model
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
