"""The simulated Copilot against the real one: the same client requests sent through the
headless editor's simulated model (`maestro-bridge serve`) and through the real Copilot 0.67
provider with the fake cloud (tests/copilot_host.py), comparing what reached the model and what
came back.

What reached the model: the simulation writes it down (headless_editor/seen_record.py); the real
Copilot's is the request its cloud received. Both are brought to one form: Copilot's system
prompt, then the conversation as a flat list of (role, kind, value) entries (message
boundaries and call ids differ by API and carry no meaning here), then the options the cloud
gets. What came back: the answer's text, tool calls and finish, in the client's dialect (both
answer by the same rules, headless_editor/sim_replies.py, from what reached them).

Pairs of models of one family: the simulation's id for the real one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_http import WEATHER_TOOL
from conftest import BridgeServer, running_bridge_server
from copilot_host import copilot_fixtures
from dialect_calls import Outcome, call
from fake_capi import FakeCapi
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures()

PAIRS = {  # simulated -> real
    "sim-echo": "gpt-4.1",
    "sim-gpt5": "gpt-5-mini",
    "sim-reasoning": "claude-sonnet-4.5",
    "sim-gemini": "gemini-2.5-pro",
}
CALL = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
}
# Chat Completions bodies, without the model.
CASES: dict[str, dict[str, Any]] = {
    "plain": {"messages": [{"role": "user", "content": "Hello there"}]},
    "options": {
        "messages": [{"role": "user", "content": "With options"}],
        "temperature": 0.3,
        "max_tokens": 200,
        "stop": ["ZZZ", "YYY"],
    },
    "client system": {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Hi"},
        ]
    },
    "history": {
        "messages": [
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": "first answer"},
            {"role": "user", "content": "second question"},
        ]
    },
    "two assistant texts": {
        "messages": [
            {"role": "user", "content": "ask"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "part one"},
                    {"type": "text", "text": "part two"},
                ],
            },
            {"role": "user", "content": "repeat your last answer"},
        ]
    },
    "tool history": {
        "messages": [
            {"role": "user", "content": "weather please"},
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "Sunny, 21 C"},
            {"role": "user", "content": "thanks"},
        ],
        "tools": [WEATHER_TOOL],
    },
    "tools offered": {
        "messages": [{"role": "user", "content": "weather in Paris?"}],
        "tools": [WEATHER_TOOL],
    },
    "effort": {"messages": [{"role": "user", "content": "think"}], "reasoning_effort": "high"},
}


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BridgeServer, Path]]:
    record = tmp_path_factory.mktemp("sim") / "seen.jsonl"
    with running_bridge_server(env={"MAESTRO_SIM_RECORD": str(record)}) as server:
        yield server, record


def _flat_parts(role: str, content: Any) -> list[tuple[str, str, str]]:
    """Entries of an OpenAI-shaped message content (a string or a list of parts)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [(role, "text", content)] if content else []
    found = []
    for part in content:
        text = part.get("text")
        if part.get("type") in ("text", "input_text", "output_text") and text:
            found.append((role, "text", text))
    return found


def _args(value: Any) -> str:
    return json.dumps(json.loads(value) if isinstance(value, str) else value, sort_keys=True)


def seen_by_sim(entry: dict[str, Any]) -> tuple[str, list[tuple[str, str, str]]]:
    flat: list[tuple[str, str, str]] = []
    for message in entry["messages"]:
        for part in message["content"]:
            if "callId" in part and "name" in part:
                flat.append(("assistant", "call", f"{part['name']} {_args(part['input'])}"))
            elif "callId" in part:
                text = "".join(p.get("value", "") for p in part["content"])
                flat.append(("tool", "result", text))
            elif part.get("value"):
                flat.append((message["role"], "text", part["value"]))
    return entry["system"], flat


def seen_by_cloud(path: str, body: dict[str, Any]) -> tuple[str, list[tuple[str, str, str]]]:
    flat: list[tuple[str, str, str]] = []
    system = ""
    if path == "/v1/messages":
        raw = body.get("system") or ""
        system = raw if isinstance(raw, str) else "".join(b.get("text", "") for b in raw)
        for message in body["messages"]:
            content = message["content"]
            if isinstance(content, str):
                flat += _flat_parts(message["role"], content)
                continue
            for block in content:
                if block["type"] == "text" and block["text"].strip():
                    flat.append((message["role"], "text", block["text"]))
                elif block["type"] == "tool_use":
                    flat.append(("assistant", "call", f"{block['name']} {_args(block['input'])}"))
                elif block["type"] == "tool_result":
                    inner = block["content"]
                    text = (
                        inner
                        if isinstance(inner, str)
                        else "".join(b.get("text", "") for b in inner)
                    )
                    flat.append(("tool", "result", text))
        return system, flat
    if path == "/responses":
        for item in body["input"]:
            kind = item.get("type", "message")
            if kind == "message" and item["role"] in ("system", "developer"):
                system += "".join(t for _, _, t in _flat_parts("system", item["content"]))
            elif kind == "message":
                flat += _flat_parts(item["role"], item["content"])
            elif kind == "function_call":
                flat.append(("assistant", "call", f"{item['name']} {_args(item['arguments'])}"))
            elif kind == "function_call_output":
                flat.append(("tool", "result", str(item["output"])))
        return system, flat
    for message in body["messages"]:
        if message["role"] == "system" and not flat:
            system += "".join(t for _, _, t in _flat_parts("system", message["content"]))
        elif message["role"] == "tool":
            flat.append(
                (
                    "tool",
                    "result",
                    "".join(t for _, _, t in _flat_parts("tool", message["content"])),
                )
            )
        else:
            flat += _flat_parts(message["role"], message.get("content"))
            for tool_call in message.get("tool_calls") or []:
                function = tool_call["function"]
                flat.append(
                    ("assistant", "call", f"{function['name']} {_args(function['arguments'])}")
                )
    return system, flat


def _comparable_options(path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The options the cloud got that the simulation also fills in."""
    keys = {
        "/chat/completions": ("temperature", "top_p", "n", "max_tokens", "stop"),
        "/responses": ("max_output_tokens", "reasoning", "include", "text", "store"),
        "/v1/messages": ("max_tokens", "thinking", "temperature"),
    }[path]
    return {key: body[key] for key in keys if key in body}


def _answer(outcome: Outcome) -> tuple[str, list[Any], str]:
    return outcome.text, outcome.tool_calls, outcome.finish


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("sim_model", list(PAIRS))
def test_the_simulation_sees_and_answers_what_copilot_does(
    sim: tuple[BridgeServer, Path],
    vscode: VSCodeHost,
    capi: FakeCapi,
    sim_model: str,
    case: str,
) -> None:
    server, record = sim
    real_model = PAIRS[sim_model]
    body = CASES[case]
    before = len(record.read_text(encoding="utf-8").splitlines()) if record.exists() else 0
    simulated = call(server.root_url, "chat", {**body, "model": sim_model}, stream=False)
    sent_before = len(capi.requests)
    real = call(
        vscode.base_url.removesuffix("/v1"), "chat", {**body, "model": real_model}, stream=False
    )
    assert (simulated.status, real.status) == (200, 200), f"{simulated}\n{real}"
    entries = record.read_text(encoding="utf-8").splitlines()[before:]
    upstream = [r for r in capi.requests[sent_before:] if r.body and r.body.get("model")]
    assert len(entries) == len(upstream) >= 1, (entries, [r.path for r in upstream])
    seen = json.loads(entries[-1])
    cloud = upstream[-1]
    sim_system, sim_flat = seen_by_sim(seen)
    real_system, real_flat = seen_by_cloud(cloud.path, cloud.body)
    assert sim_system.strip() == real_system.strip()
    assert sim_flat == real_flat
    expected = _comparable_options(cloud.path, cloud.body)
    assert {k: v for k, v in seen["body"].items() if k in expected} == expected
    assert _answer(simulated) == _answer(real)
