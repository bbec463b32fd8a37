"""Responses create bodies for the fast-path tests: every item and part kind the conversion
reads, the shapes clients send, and odd ones that only the exact path may answer."""

from __future__ import annotations

import base64
import json
from typing import Any

from fixture_files import client_requests

from bench import conversation
from bench.dialect_bodies import responses_body
from bridge.responses.compaction_codec import encode_summary

Body = dict[str, Any]
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def _call(call_id: str, name: str = "shell", arguments: str = '{"command": "ls"}') -> Body:
    return {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}


def _output(call_id: str, output: Any = "a.py") -> Body:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


EVERY_KIND: list[Body] = [
    {"type": "message", "role": "developer", "content": "Be brief."},
    {"role": "system", "content": [{"type": "input_text", "text": "Typeless system."}]},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "Look:"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}"},
            {"type": "input_image", "file_id": "file_1"},
            {
                "type": "input_file",
                "filename": "a.txt",
                "file_data": base64.b64encode(b"hi").decode(),
            },
            {"type": "input_file", "file_url": "https://example.com/x.pdf"},
            {"type": "input_text", "text": ""},
            {"type": "mystery_part"},
        ],
    },
    {
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "output_text", "text": "Sure.", "annotations": []},
            {"type": "refusal", "refusal": "Not that."},
        ],
    },
    _call("c1"),
    {**_call("c2", "spawn", "not json"), "namespace": "agents"},
    {"type": "custom_tool_call", "call_id": "c3", "name": "apply_patch", "input": "*** Begin"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    _output("c1"),
    _output(
        "c2",
        [
            {"type": "input_text", "text": "spawned"},
            {"type": "input_image", "image_url": "https://x/y.png"},
        ],
    ),
    {"type": "custom_tool_call_output", "call_id": "c3", "output": ""},
    {"type": "message", "role": "developer", "content": "Later developer text."},
    {
        "type": "agent_message",
        "author": "root",
        "recipient": "child",
        "content": [{"type": "input_text", "encrypted_content": "Do the task."}],
    },
    {"type": "agent_message", "author": "child"},
    {"type": "compaction", "encrypted_content": encode_summary("Earlier: Ada."), "id": "cmp_1"},
    {
        "type": "additional_tools",
        "tools": [{"type": "function", "name": "extra", "parameters": {"type": "object"}}],
    },
    {
        "type": "tool_search_call",
        "call_id": "s1",
        "execution": "client",
        "arguments": {"query": "files"},
    },
    {
        "type": "tool_search_output",
        "call_id": "s1",
        "execution": "client",
        "tools": [{"type": "function", "name": "grep", "defer_loading": True}],
    },
    {"type": "tool_search_call", "call_id": "s2", "arguments": "hosted"},
    {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}},
    {"type": "message", "role": "assistant", "content": "Done."},
    {"type": "message", "role": "user", "content": ""},
    {"role": "user", "content": "Thanks, and 1 more."},
]
TOOLS: list[Body] = [
    {"type": "function", "name": "shell", "parameters": {"type": "object"}, "strict": False},
    {
        "type": "custom",
        "name": "apply_patch",
        "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"},
    },
    {"type": "namespace", "name": "agents", "tools": [{"type": "function", "name": "spawn"}]},
    {"type": "tool_search", "execution": "client"},
    {"type": "web_search"},
]


def crafted() -> dict[str, Body]:
    """Hand-made bodies that the exact path accepts, by name."""
    return {
        "every kind": {
            "model": "sim-echo",
            "instructions": "You are terse.",
            "input": EVERY_KIND,
            "tools": TOOLS,
            "tool_choice": {"type": "function", "name": "shell"},
            "reasoning": {"effort": "high", "summary": "auto"},
            "text": {"format": {"type": "text"}},
            "metadata": {"k": "v"},
            "temperature": 1,
            "top_p": 0.5,
            "max_output_tokens": 100,
            "truncation": "auto",
            "parallel_tool_calls": False,
            "store": False,
            "stream": True,
            "include": ["reasoning.encrypted_content"],
            "prompt_cache_key": "k",
            "background": False,
            "previous_response_id": None,
        },
        "string input": {"model": "sim-echo", "input": "hello"},
        "instructions only": {"model": "sim-echo", "instructions": "Say hi."},
        "typeless only": {"model": "m", "input": [{"role": "user", "content": "hi"}]},
        "orphan output": {"model": "m", "input": [_output("nowhere")]},
        "unknown item type": {"model": "m", "input": [{"type": "frobnicate"}]},
        "call after its output": {"model": "m", "input": [_output("c9"), _call("c9")]},
        "repeated calls": {"model": "m", "input": [_call("c1"), _call("c1"), _output("c1")]},
        "coerced numbers": {"model": "m", "input": "x", "temperature": "0.5"},
        "float tokens": {"model": "m", "input": "x", "max_output_tokens": 5.0},
        "empty input": {"model": "m", "input": []},
        "nothing readable": {"model": "m", "input": [{"type": "reasoning"}]},
        # A reasoning item whose fields are not the shapes its Struct declares: the exact path
        # keeps it as it came, and skips it all the same.
        "odd reasoning": {
            "model": "m",
            "input": [
                {"type": "reasoning", "summary": "not a list", "status": 3},
                {"type": "message", "role": "user", "content": "hi"},
            ],
        },
    }


def bench_bodies() -> dict[str, Body]:
    """The history sweep's bodies (bench/dialect_bodies.py) at a few sizes."""
    return {
        "bench 1": responses_body(conversation.history(1)),
        "bench 200": responses_body(conversation.history(200)),
        "bench 601": responses_body(conversation.history(601)),
        "bench bulky": responses_body(conversation.bulky(60_000)),
    }


def client_bodies() -> dict[str, Body]:
    """Every captured Responses request (tests/fixtures/clients)."""
    bodies: dict[str, Body] = {}
    for path in client_requests():
        body = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(body, dict):
            bodies[path.stem] = body
    return bodies


def every_body() -> dict[str, Body]:
    return {**client_bodies(), **bench_bodies(), **crafted()}
