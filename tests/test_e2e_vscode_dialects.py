"""The Anthropic Messages and Chat Completions dialects through a real VS Code extension host
(code-server, headless), as tests/test_e2e_vscode.py does for Responses: the client talks to
the bridge the Maestro Bridge extension started, and the real GitHub Copilot provider answers,
against a fake of its cloud (tests/copilot_host.py).

    client -> bridge (HTTP) -> lsp (stdio) -> extension -> vscode.lm -> Copilot 0.67
           -> fake CAPI (Claude: /v1/messages; GPT-4.1: /chat/completions)

The real Claude Code CLI runs a tool loop over Messages on Claude; the openai SDK and plain
HTTP (every chunk on the wire checked by tests/chat_validation.py) use Chat Completions on
GPT-4.1. What Copilot made of each request is checked where it arrived, at the fake cloud,
whose answers come from a test's script where the test needs a tool call. Both fail under $CI
and are skipped elsewhere when code-server or the CLI is missing, as the harness is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_http import WEATHER_TOOL, as_json, checked, reasoning_of, same_answer
from chat_validation import check_stream, parse_sse
from claude_code_cli import claude_or_skip, run_claude
from copilot_cloud import (
    CLAUDE,
    GPT,
    call_rule,
    nonce,
    output_tokens,
    prompt_tokens,
    scripted,
    sent_with,
    text_of,
    text_rule,
    thinking_of,
    upstream,
)
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from plain_http import post
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

MODEL = GPT


capi, vscode = copilot_fixtures()


@pytest.fixture
def client(vscode: VSCodeHost) -> Iterator[OpenAI]:
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        yield sdk


def blocks(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The content blocks of a kind (tool_use, tool_result) of Anthropic messages."""
    return [
        b
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == kind
    ]


def test_claude_code_tool_loop(vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path) -> None:
    """The real Claude Code CLI against the extension's bridge (Anthropic Messages) on
    Copilot's Claude: the model calls Claude Code's own Bash tool, the CLI runs it, and the
    model's answer to the tool result is the run's final text. The call and its result
    reach Claude's Messages API paired (tool_use, then its tool_result)."""
    claude = claude_or_skip()
    workdir = tmp_path / "work"
    workdir.mkdir()
    marker = nonce()
    command = {"command": f"echo {marker} > out.txt && cat out.txt", "description": "Write"}
    rules = [
        call_rule(f"Write {marker} into out", "Bash", command),
        text_rule(rf"(?m)^{marker}$", f"Bash said {marker}."),  # the command's output line
    ]
    with scripted(capi, rules):
        run = run_claude(
            claude,
            vscode.base_url.removesuffix("/v1"),  # Claude Code adds /v1 itself
            f"Write {marker} into out.txt, please.",
            cwd=workdir,
            home=tmp_path / "home",
            model=CLAUDE,
            timeout=120,
        )
    assert run.returncode == 0, f"{run.report}\n{vscode.diagnostics()}"
    assert (workdir / "out.txt").read_text(encoding="utf-8") == f"{marker}\n", run.report
    assert run.stdout.strip() == f"Bash said {marker}.", run.report
    # Two model turns reached Claude's Messages API: the call, then the answer to its result.
    turns = [r for r in sent_with(capi, marker) if r.body.get("tools")]
    assert [r.path for r in turns] == ["/v1/messages"] * 2, [r.path for r in turns]
    first, second = (r.body for r in turns)
    assert first["model"] == CLAUDE
    assert "Bash" in {tool["name"] for tool in first["tools"]}
    [call] = blocks(second["messages"], "tool_use")
    assert (call["name"], call["input"]) == ("Bash", command), call
    [result] = blocks(second["messages"], "tool_result")
    assert result["tool_use_id"] == call["id"], second["messages"][-1]
    assert marker in text_of(result["content"]).splitlines(), result


def test_chat_completions_stream_from_the_provider(
    client: OpenAI, vscode: VSCodeHost, capi: FakeCapi
) -> None:
    text = f"Hello from the SDK {nonce()}"
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": text}]
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
    assert message["content"] == f"You said: {text}"
    # The usage Copilot's cloud billed came through Copilot and the extension as the answer's.
    sent = upstream(capi, text)
    usage = streamed["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (
        prompt_tokens(sent),
        output_tokens(f"You said: {text}"),
    )
    assert (sent.path, sent.body["model"]) == ("/chat/completions", MODEL)
    last = sent.body["messages"][-1]
    assert (last["role"], text_of(last["content"])) == ("user", text), last
    # Without streaming: the same answer, folded by the bridge.
    answer = checked(client.chat.completions.create(model=MODEL, messages=messages))
    assert same_answer(as_json(answer), streamed)


def test_chat_completions_tool_round_trip(client: OpenAI, capi: FakeCapi) -> None:
    marker = nonce()
    messages: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": f"What is the weather in Paris {marker}?"}
    ]
    rules = [
        call_rule(f"weather in Paris {marker}", "get_weather", {"city": "Paris"}),
        text_rule(f"sunny, 21 C {marker}", "It is sunny in Paris."),
    ]
    with scripted(capi, rules):
        first = checked(
            client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
        )
        choice = first.choices[0]
        assert choice.finish_reason == "tool_calls"
        calls = choice.message.tool_calls or []
        assert len(calls) == 1, choice.message
        call = calls[0]
        assert call.type == "function"
        assert (call.function.name, json.loads(call.function.arguments)) == (
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
            {"role": "tool", "tool_call_id": call.id, "content": f"sunny, 21 C {marker}"},
        ]
        second = checked(
            client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
        )
    assert second.choices[0].message.content == "It is sunny in Paris."
    assert second.choices[0].finish_reason == "stop"
    asked, answered = sent_with(capi, marker)
    assert [t["function"]["name"] for t in asked.body["tools"]] == ["get_weather"]
    sent = answered.body["messages"]
    assert [m["role"] for m in sent[-2:]] == ["assistant", "tool"], sent
    [sent_call] = sent[-2]["tool_calls"]
    assert sent_call["function"]["name"] == "get_weather", sent_call
    assert json.loads(sent_call["function"]["arguments"]) == {"city": "Paris"}, sent_call
    assert sent[-1]["tool_call_id"] == sent_call["id"], sent[-1]
    assert text_of(sent[-1]["content"]) == f"sunny, 21 C {marker}", sent[-1]


def test_chat_completions_thinking_is_reasoning_content(client: OpenAI, capi: FakeCapi) -> None:
    """A reasoning effort switches on Claude's thinking through Copilot; its thinking comes
    back as `reasoning_content`, apart from the answer."""
    prompt = f"Think {nonce()}"
    answer = checked(
        client.chat.completions.create(
            model=CLAUDE,
            messages=[{"role": "user", "content": prompt}],
            reasoning_effort="high",
        )
    )
    message = answer.choices[0].message
    assert reasoning_of(message) == thinking_of(prompt)
    assert message.content == f"You said: {prompt}"
    assert "thinking" in upstream(capi, prompt).body
