"""Through a real `serve`, in every dialect: what the editor receives is a request Copilot
accepts, and the client still sees its own tool names.

The simulated model's `request` reply (headless_editor/script.py) answers with the editor's
chat request as JSON, so each test reads back what reached the editor."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from conftest import BridgeServer
from plain_http import post

from bridge.core.copilot.messages import CONTINUE, EMPTY_RESULT
from bridge.core.copilot.required import INSTRUCTION, REMINDER
from bridge.core.copilot.tool_names import editor_name
from bridge.core.turn_notes import HEADER

# A stop sequence the echoed JSON cannot hold as it is (JSON escapes it), so no cut happens.
STOP = "\u0007"
COPILOT_KEYS = {"max_tokens", "temperature", "stop", "frequency_penalty", "presence_penalty"}
COPILOT_NAME = re.compile(r"^[\w-]{1,64}$", re.ASCII)
SENT_NAME = editor_name("fs.read")
SCRIPT = {
    "rules": [
        {"match": "SHOW REQUEST|Continue your answer", "reply": [{"type": "request"}]},
        {"match": "MUST CALL", "reply": [{"type": "text", "text": "No tool."}]},
        {
            "match": "You answered without calling a tool",
            "reply": [
                {"type": "request"},
                {"type": "tool_call", "name": SENT_NAME, "arguments": {"path": "x"}},
            ],
        },
    ]
}
# A JPEG of 1000 x 1000 px (its header): VS Code would re-encode it to PNG.
BIG_JPEG = base64.b64encode(
    b"\xff\xd8\xff\xc0\x00\x11\x08" + (1000).to_bytes(2, "big") * 2 + b"\x03" + bytes(12)
).decode()
READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path", "ghost"],
    "anyOf": [{"required": ["path"]}],
}
BASH_SCHEMA = {"type": "object", "properties": {"cmd": {"type": "string"}}}


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from conftest import running_bridge_server

    path = tmp_path_factory.mktemp("script") / "script.json"
    path.write_text(json.dumps(SCRIPT))
    with running_bridge_server("--script", str(path)) as running:
        yield running


# --------------------------------------------------------------------------- the dialects


def chat_body(kind: str) -> dict[str, Any]:
    tools = [
        {
            "type": "function",
            "function": {"name": "fs.read", "description": "", "parameters": READ_SCHEMA},
        },
        {
            "type": "function",
            "function": {"name": "Bash", "description": "Run.", "parameters": BASH_SCHEMA},
        },
    ]
    base: dict[str, Any] = {"model": "sim-echo", "tools": tools, "max_tokens": 4000}
    if kind == "required":
        return {
            **base,
            "tool_choice": "required",
            "messages": [{"role": "user", "content": "MUST CALL"}],
        }
    if kind == "prefill":
        return {
            **base,
            "messages": [
                {"role": "user", "content": "Write a poem"},
                {"role": "assistant", "content": "Roses are"},
            ],
        }
    call = {"id": "c1", "type": "function", "function": {"name": "fs.read", "arguments": "{}"}}
    return {
        **base,
        "temperature": 0.5,
        "top_p": 0.9,
        "stop": [STOP],
        "reasoning_effort": "low",
        "messages": [
            {"role": "user", "content": "start"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "First."},
                    {"type": "text", "text": "Second."},
                ],
                "tool_calls": [call],
            },
            {"role": "tool", "tool_call_id": "c1", "content": ""},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "SHOW REQUEST"},
                    {
                        "type": "image_url",
                        "image_url": {"url": f"data:image/jpeg;base64,{BIG_JPEG}"},
                    },
                ],
            },
        ],
    }


def chat_answer(body: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    message = body["choices"][0]["message"]
    calls = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in message.get("tool_calls") or []
    ]
    return message.get("content") or "", calls


def anthropic_body(kind: str) -> dict[str, Any]:
    tools = [
        {"name": "fs.read", "description": "", "input_schema": READ_SCHEMA},
        {"name": "Bash", "description": "Run.", "input_schema": BASH_SCHEMA},
    ]
    base: dict[str, Any] = {"model": "sim-echo", "tools": tools, "max_tokens": 4000}
    if kind == "required":
        return {
            **base,
            "tool_choice": {"type": "any"},
            "messages": [{"role": "user", "content": "MUST CALL"}],
        }
    if kind == "prefill":
        return {
            **base,
            "messages": [
                {"role": "user", "content": "Write a poem"},
                {"role": "assistant", "content": "Roses are"},
            ],
        }
    image = {"type": "base64", "media_type": "image/jpeg", "data": BIG_JPEG}
    return {
        **base,
        "temperature": 0.5,
        "top_p": 0.9,
        "stop_sequences": [STOP],
        "output_config": {"effort": "low"},
        "messages": [
            {"role": "user", "content": "start"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "First."},
                    {"type": "text", "text": "Second."},
                    {"type": "tool_use", "id": "c1", "name": "fs.read", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "SHOW REQUEST"},
                    {"type": "tool_result", "tool_use_id": "c1", "content": ""},
                    {"type": "image", "source": image},
                ],
            },
        ],
    }


def anthropic_answer(body: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    text = "".join(b["text"] for b in body["content"] if b["type"] == "text")
    return text, [(b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]


def responses_body(kind: str) -> dict[str, Any]:
    tools = [
        {"type": "function", "name": "fs.read", "description": "", "parameters": READ_SCHEMA},
        {"type": "function", "name": "Bash", "description": "Run.", "parameters": BASH_SCHEMA},
    ]
    base: dict[str, Any] = {"model": "sim-echo", "tools": tools, "max_output_tokens": 4000}
    if kind == "required":
        return {**base, "tool_choice": "required", "input": "MUST CALL"}
    if kind == "prefill":
        return {
            **base,
            "input": [
                {"role": "user", "content": "Write a poem"},
                {"role": "assistant", "content": "Roses are"},
            ],
        }
    texts = [{"type": "output_text", "text": "First."}, {"type": "output_text", "text": "Second."}]
    return {
        **base,
        "temperature": 0.5,
        "top_p": 0.9,
        "reasoning": {"effort": "low", "summary": "auto"},
        "input": [
            {"role": "user", "content": "start"},
            {"type": "message", "role": "assistant", "content": texts},
            {"type": "function_call", "call_id": "c1", "name": "fs.read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": ""},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "SHOW REQUEST"},
                    {"type": "input_image", "image_url": f"data:image/jpeg;base64,{BIG_JPEG}"},
                ],
            },
        ],
    }


def responses_answer(body: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    text = "".join(
        part["text"]
        for item in body["output"]
        if item["type"] == "message"
        for part in item["content"]
    )
    calls = [
        (item["name"], json.loads(item["arguments"]))
        for item in body["output"]
        if item["type"] == "function_call"
    ]
    return text, calls


def gemini_body(kind: str) -> dict[str, Any]:
    declarations = [
        {"name": "fs.read", "description": "", "parametersJsonSchema": READ_SCHEMA},
        {"name": "Bash", "description": "Run.", "parametersJsonSchema": BASH_SCHEMA},
    ]
    base: dict[str, Any] = {"tools": [{"functionDeclarations": declarations}]}
    config: dict[str, Any] = {"maxOutputTokens": 4000}
    if kind == "required":
        return {
            **base,
            "generationConfig": config,
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
            "contents": [{"role": "user", "parts": [{"text": "MUST CALL"}]}],
        }
    if kind == "prefill":
        return {
            **base,
            "generationConfig": config,
            "contents": [
                {"role": "user", "parts": [{"text": "Write a poem"}]},
                {"role": "model", "parts": [{"text": "Roses are"}]},
            ],
        }
    return {
        **base,
        "generationConfig": {
            **config,
            "temperature": 0.5,
            "topP": 0.9,
            "stopSequences": [STOP],
            "thinkingConfig": {"thinkingLevel": "low"},
        },
        "contents": [
            {"role": "user", "parts": [{"text": "start"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "First."},
                    {"text": "Second."},
                    {"functionCall": {"id": "c1", "name": "fs.read", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"text": "SHOW REQUEST"},
                    {"functionResponse": {"id": "c1", "name": "fs.read", "response": {}}},
                    {"inlineData": {"mimeType": "image/jpeg", "data": BIG_JPEG}},
                ],
            },
        ],
    }


def gemini_answer(body: dict[str, Any]) -> tuple[str, list[tuple[str, Any]]]:
    parts = body["candidates"][0]["content"]["parts"]
    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
    return text, [
        (p["functionCall"]["name"], p["functionCall"]["args"]) for p in parts if "functionCall" in p
    ]


Dialect = tuple[str, Callable[[str], dict[str, Any]], Callable[[dict[str, Any]], Any]]
DIALECTS: dict[str, Dialect] = {
    "chat": ("/v1/chat/completions", chat_body, chat_answer),
    "anthropic": ("/v1/messages", anthropic_body, anthropic_answer),
    "responses": ("/v1/responses", responses_body, responses_answer),
    "gemini": ("/v1beta/models/sim-echo:generateContent", gemini_body, gemini_answer),
}


def ask(server: BridgeServer, dialect: str, kind: str) -> tuple[str, list[tuple[str, Any]]]:
    path, body, answer = DIALECTS[dialect]
    reply = post(server.root_url + path, body(kind))
    assert reply.status_code == 200, reply.text
    text, calls = answer(reply.json())
    return text, calls


def parts_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    return list(message["content"])


# --------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_editor_gets_a_request_copilot_accepts(server: BridgeServer, dialect: str) -> None:
    text, _ = ask(server, dialect, "history")
    sent = json.loads(text)
    # Options: Copilot's keys only; the effort in modelConfiguration.
    assert set(sent["modelOptions"]) <= COPILOT_KEYS
    assert sent["modelOptions"]["max_tokens"] == 4000
    assert sent["modelOptions"]["temperature"] == 0.5
    if dialect in ("chat", "gemini"):  # natively, as one string: Copilot drops a list
        assert sent["modelOptions"]["stop"] == STOP
    else:  # Responses has none; Messages cuts them itself, to name the one that ended it
        assert "stop" not in sent["modelOptions"]
    assert sent["modelConfiguration"] == {"reasoningEffort": "low"}
    # Tools: valid names, a description, schemas Copilot's upstream takes.
    tools = {tool["name"]: tool for tool in sent["tools"]}
    assert set(tools) == {SENT_NAME, "Bash"} and all(COPILOT_NAME.fullmatch(n) for n in tools)
    read = tools[SENT_NAME]
    assert read["description"] and "anyOf" in read["description"]
    assert "anyOf" not in read["inputSchema"] and read["inputSchema"]["required"] == ["path"]
    # Messages: one text part per assistant message, its call under the editor's name, the
    # results first in the message that answers it, no empty text, the image as it arrives.
    messages = sent["messages"]
    at = next(i for i, m in enumerate(messages) if m["role"] == "assistant")
    assistant = parts_of(messages[at])
    assert [p["type"] for p in assistant] == ["text", "toolCall"]
    assert assistant[0]["value"] == "First.\n\nSecond." and assistant[1]["name"] == SENT_NAME
    answer = parts_of(messages[at + 1])
    assert answer[0]["type"] == "toolResult" and answer[0]["callId"] == assistant[1]["callId"]
    if dialect != "gemini":  # Gemini's empty response is the JSON `{}`
        assert answer[0]["content"] == [{"type": "text", "value": EMPTY_RESULT}]
    every = [p for m in messages for p in m["content"]]
    assert all(p["value"] for p in every if p["type"] == "text")
    images = [p for p in every if p["type"] == "data"]
    assert [p["mimeType"] for p in images] == ["image/png"]  # VS Code re-encodes it to PNG


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_a_prefill_becomes_an_explicit_continuation(server: BridgeServer, dialect: str) -> None:
    text, _ = ask(server, dialect, "prefill")
    messages = json.loads(text)["messages"]
    assert messages[-2]["role"] == "assistant"
    assert messages[-2]["content"] == [{"type": "text", "value": "Roses are"}]
    assert messages[-1] == {"role": "user", "content": [{"type": "text", "value": CONTINUE}]}


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_required_with_several_tools_still_gets_a_call(server: BridgeServer, dialect: str) -> None:
    text, calls = ask(server, dialect, "required")
    # The client sees the call under its own name, with the model's arguments as they came.
    assert calls == [("fs.read", {"path": "x"})]
    retry = json.loads(text)  # the second request: the first answered in text alone
    assert retry["toolMode"] == "auto"
    # The instruction closes the client's conversation (bridge/core/turn_notes.py).
    assert retry["messages"][-3]["content"] == [
        {"type": "text", "value": HEADER},
        {"type": "text", "value": INSTRUCTION},
    ]
    assert retry["messages"][-2]["content"] == [{"type": "text", "value": "No tool."}]
    assert retry["messages"][-1]["content"] == [{"type": "text", "value": REMINDER}]
    assert "No tool." not in text.replace('"value":"No tool."', "")  # never sent to the client
