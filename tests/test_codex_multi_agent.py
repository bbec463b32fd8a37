"""Codex multi-agent mode (`codex exec --enable multi_agent_v2`, Codex 0.169).

Codex offers the namespace tool `collaboration` (`spawn_agent`, `wait_agent`, ...; the
`message` properties carry `"encrypted": true`). A spawned child's request (header
`x-openai-subagent: collab_spawn`) ends with an `agent_message` holding its task; the parent
gets the child's answer as another `agent_message`. The captured bodies are in
tests/fixtures/clients/codex-multi-agent-*.json (see codex-multi-agent.md there).

Measured with real Codex: when the bridge's `function_call` of a tool with encrypted
parameters carries `encrypted_function_args: []`, Codex gives the child its task as plain
`input_text`; without it, as an `encrypted_content` part that holds the same plain text. The
bridge sets it, and reads both shapes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import processes
import pytest
from conftest import StartServer
from spec_validation import validate_stream
from test_e2e_codex import API_KEY_ENV, CODEX_TIMEOUT, find_codex, write_config

from bridge.core.backend import ChatMessage, TextPart, ToolCallPart, ToolResultPart
from bridge.responses.convert_input import editor_messages
from bridge.responses.events import ResponseEventBuilder
from bridge.responses.request import parse_create_request
from bridge.responses.response_object import new_response, usage_object
from bridge.responses.tools import plan_request_tools
from headless_editor.reply_steps import last_item_text

FIXTURES = Path(__file__).parent / "fixtures" / "clients"


def fixture(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))
    return body


def texts(message: ChatMessage) -> list[str]:
    return [p.value for p in message.content if isinstance(p, TextPart)]


# --------------------------------------------------------------------------- captured requests


@pytest.mark.parametrize(
    "name", ["codex-multi-agent-child-1", "codex-multi-agent-child-plaintext-1"]
)
def test_the_child_reads_its_task(name: str) -> None:
    raw = fixture(name)
    meta = json.loads((FIXTURES / f"{name}.meta.json").read_text("utf-8"))
    assert meta["headers"]["x-openai-subagent"] == "collab_spawn"

    messages = editor_messages(parse_create_request(raw))

    last = messages[-1]
    assert last.role == "user"
    assert texts(last)[0] == "[Message from agent /root to /root/helper]"
    assert "Sender: /root" in "".join(texts(last))
    assert "MAESTRO-TASK: compute 2+2" in last_item_text(messages)


def test_the_parent_reads_the_childs_answer() -> None:
    messages = editor_messages(parse_create_request(fixture("codex-multi-agent-parent-2")))

    calls = [p for m in messages for p in m.content if isinstance(p, ToolCallPart)]
    results = [p for m in messages for p in m.content if isinstance(p, ToolResultPart)]
    assert [c.name for c in calls] == ["collaboration__spawn_agent", "collaboration__wait_agent"]
    assert [r.callId for r in results] == [c.callId for c in calls]
    assert texts(messages[-1])[0] == "[Message from agent /root/helper to /root]"
    assert "CHILD-ANSWER four" in last_item_text(messages)


# --------------------------------------------------------------------------- streamed calls


def test_streamed_calls_keep_their_namespace_and_say_their_arguments_are_plain() -> None:
    raw = fixture("codex-multi-agent-parent-1")
    # A namespaced custom tool too, as Codex's code mode offers one (`functions.exec`).
    code_mode = {
        "type": "namespace",
        "name": "functions",
        "tools": [{"type": "custom", "name": "exec"}],
    }
    raw["input"].append({"type": "additional_tools", "role": "developer", "tools": [code_mode]})
    request = parse_create_request(raw)
    plan = plan_request_tools(request)
    builder = ResponseEventBuilder(
        new_response(request, "resp_AM-1-test", plan.echo, plan.choice_echo), plan.targets, False
    )

    events = builder.start()
    events += builder.add(
        [
            ToolCallPart(
                callId="c1",
                name="collaboration__spawn_agent",
                input={"task_name": "helper", "message": "Compute 2+2."},
            ),
            ToolCallPart(callId="c2", name="collaboration__wait_agent", input={}),
            ToolCallPart(callId="c3", name="functions__exec", input={"input": "text(1)"}),
        ]
    )
    events += builder.complete(usage_object(1, 1))

    spawn, wait, code = validate_stream(events)["output"]
    assert spawn["type"] == "function_call" and spawn["name"] == "spawn_agent"
    assert spawn["namespace"] == "collaboration"
    assert spawn["encrypted_function_args"] == []
    assert json.loads(spawn["arguments"])["message"] == "Compute 2+2."
    assert wait["namespace"] == "collaboration" and "encrypted_function_args" not in wait
    assert code["type"] == "custom_tool_call"
    assert (code["name"], code["namespace"], code["input"]) == ("exec", "functions", "text(1)")
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert [item.get("namespace") for item in added] == ["collaboration"] * 2 + ["functions"]


# --------------------------------------------------------------------------- real Codex

ANSWER = "CHILD-ANSWER: maestro-42"
RULES: dict[str, Any] = {
    "rules": [
        # (d) The parent, given the child's answer: return it.
        {"match": ANSWER, "reply": [{"type": "text", "text": f"PARENT-DONE {ANSWER}"}]},
        # (c) The child, given its task: answer it.
        {"match": "MAESTRO-TASK", "reply": [{"type": "text", "text": ANSWER}]},
        # (a) The user's prompt: spawn a child with a task.
        {
            "match": "Ask a helper agent",
            "reply": [
                {
                    "type": "tool_call",
                    "name": "collaboration__spawn_agent",
                    "arguments": {
                        "task_name": "helper",
                        "message": "MAESTRO-TASK: reply with the code word.",
                        "fork_turns": "none",
                    },
                }
            ],
        },
        # (b) spawn_agent's output (`{"task_name":"/root/helper"}`): wait for the child.
        {
            "match": '"task_name"',
            "reply": [
                {
                    "type": "tool_call",
                    "name": "collaboration__wait_agent",
                    "arguments": {"timeout_ms": 60000},
                }
            ],
        },
        # Anything else means a message was lost: say so instead of guessing.
        {"match": "", "reply": [{"type": "text", "text": "FALLBACK"}]},
    ]
}


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_parent_gets_its_childs_answer(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    codex_bin = find_codex()
    if codex_bin is None:
        if os.environ.get("CI"):
            pytest.fail("Codex CLI not found (see tests/test_e2e_codex.py)")
        pytest.skip("Codex CLI not found (see tests/test_e2e_codex.py)")
    server = bridge_server_factory("--model-alias", "gpt-5.5=sim-echo", script=RULES)
    codex_home = tmp_path / "codex-home"
    write_config(codex_home, server, "gpt-5.5")
    workdir = tmp_path / "work"
    workdir.mkdir()
    last_message = tmp_path / "last-message.txt"
    sandbox = os.environ.get("MAESTRO_CODEX_SANDBOX", "workspace-write")
    flags = ["--enable", "multi_agent_v2", "--skip-git-repo-check", "--sandbox", sandbox]
    flags += ["--color", "never", "--cd", str(workdir), "--output-last-message", str(last_message)]
    env = {**os.environ, "CODEX_HOME": str(codex_home), API_KEY_ENV: "dummy-key", "NO_COLOR": "1"}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.pop(name, None)

    result = processes.run(
        [codex_bin, "exec", *flags, "Ask a helper agent for the code word."],
        cwd=workdir,
        env=env,
        timeout=CODEX_TIMEOUT,
    )

    report = (
        f"codex exit {result.returncode}\nstdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr}\nbridge:\n{server.stderr_text()}"
    )
    assert result.returncode == 0, report
    assert last_message.read_text("utf-8").strip() == f"PARENT-DONE {ANSWER}", report
    assert "FALLBACK" not in result.stdout + result.stderr, report
    server.assert_alive()
