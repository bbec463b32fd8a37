"""The Anthropic Messages and Chat Completions dialects through a real VS Code extension host
(code-server, headless), as tests/test_e2e_vscode.py does for Responses: the client talks to
the bridge the Maestro Bridge extension started, and the scripted `vscode.lm` provider answers.

    client -> bridge (HTTP) -> lsp (stdio) -> extension -> vscode.lm -> scripted provider

The real Claude Code CLI runs a tool loop over Messages; the openai SDK and plain HTTP (every
chunk on the wire checked by tests/chat_validation.py) use Chat Completions. Both fail under $CI
and are skipped elsewhere when code-server or the CLI is missing, as the harness is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_http import WEATHER_TOOL, as_json, checked, reasoning_of, same_answer
from chat_validation import check_stream, parse_sse
from claude_code_cli import claude_or_skip, run_claude
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from plain_http import post
from vscode_host import VSCodeHost, host_fixture, last_requests

pytestmark = pytest.mark.timeout(600)

MODEL = "scripted-model"


vscode = host_fixture()


@pytest.fixture
def client(vscode: VSCodeHost) -> Iterator[OpenAI]:
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        yield sdk


def test_claude_code_tool_loop(vscode: VSCodeHost, tmp_path: Path) -> None:
    """The real Claude Code CLI against the extension's bridge (Anthropic Messages): the
    scripted provider calls Claude Code's own Bash tool, the CLI runs it, and the provider's
    answer to the tool result is the run's final text."""
    claude = claude_or_skip()
    workdir = tmp_path / "work"
    workdir.mkdir()
    command = {"command": "echo hi > out.txt && cat out.txt", "description": "Write out.txt"}
    run = run_claude(
        claude,
        vscode.base_url.removesuffix("/v1"),  # Claude Code adds /v1 itself
        f"Run this: [call Bash {json.dumps(command)}]",
        cwd=workdir,
        home=tmp_path / "home",
        model=MODEL,
        timeout=120,
    )
    assert run.returncode == 0, f"{run.report}\n{vscode.diagnostics()}"
    assert (workdir / "out.txt").read_text(encoding="utf-8") == "hi\n", run.report
    assert run.stdout.strip() == "Bash returned: hi", run.report
    # Two model turns went through vscode.lm: the call, then the answer to its result.
    first, second = last_requests(vscode, 2)
    assert first["model"] == MODEL
    assert "Bash" in {tool["name"] for tool in first["tools"]}
    [call] = [p for p in second["messages"][-2]["content"] if p["type"] == "toolCall"]
    assert (call["name"], call["input"]) == ("Bash", command)
    results = [p for p in second["messages"][-1]["content"] if p["type"] == "toolResult"]
    assert [r["callId"] for r in results] == [call["callId"]], second["messages"][-1]
    assert results[0]["content"] == [{"type": "text", "value": "hi"}]


def test_chat_completions_stream_from_the_provider(client: OpenAI, vscode: VSCodeHost) -> None:
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Hello from the SDK"}]
    body = {"model": MODEL, "messages": messages, "stream": True}
    reply = post(
        f"{vscode.base_url}/chat/completions", {**body, "stream_options": {"include_usage": True}}
    )
    assert reply.status_code == 200, f"{reply.text}\n{vscode.diagnostics()}"
    sse = parse_sse(reply.text)
    streamed = check_stream(sse.chunks, include_usage=True)
    deltas = [
        c["choices"][0]["delta"].get("content")
        for c in sse.chunks
        if isinstance(c, dict) and c.get("choices")
    ]
    assert len([d for d in deltas if d]) > 1  # streamed, not one lump
    message = streamed["choices"][0]["message"]
    assert message["content"] == "You said: Hello from the SDK"
    # The provider's `usage` data part came through the extension as the answer's usage.
    usage = streamed["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (11, 7)
    [request] = last_requests(vscode, 1)
    assert request["model"] == MODEL
    assert request["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "value": "Hello from the SDK"}],
    }
    # Without streaming: the same answer, folded by the bridge.
    answer = checked(client.chat.completions.create(model=MODEL, messages=messages))
    assert same_answer(as_json(answer), streamed)


def test_chat_completions_tool_round_trip(client: OpenAI, vscode: VSCodeHost) -> None:
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": "What is the weather in Paris?"}
    ]
    first = checked(
        client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
    )
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert len(calls) == 1, choice.message
    call = calls[0]
    assert call.type == "function"
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == (
        "call_w1",
        "get_weather",
        {"city": "Paris"},
    )
    messages += [
        {
            "role": "assistant",
            "content": choice.message.content,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": call.function.arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 C"},
    ]
    second = checked(
        client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
    )
    assert second.choices[0].message.content == "get_weather returned: sunny, 21 C"
    assert second.choices[0].finish_reason == "stop"
    [request] = last_requests(vscode, 1)
    assert [m["role"] for m in request["messages"][-2:]] == ["assistant", "user"]
    [sent_call] = [p for p in request["messages"][-2]["content"] if p["type"] == "toolCall"]
    assert sent_call == {
        "type": "toolCall",
        "callId": "call_w1",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }
    assert request["messages"][-1]["content"] == [
        {
            "type": "toolResult",
            "callId": "call_w1",
            "content": [{"type": "text", "value": "sunny, 21 C"}],
        }
    ]


def test_chat_completions_thinking_is_reasoning_content(client: OpenAI) -> None:
    answer = checked(
        client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "[think] about it"}]
        )
    )
    message = answer.choices[0].message
    assert reasoning_of(message) == "Thinking it over."
    assert message.content == "Thought about it."
