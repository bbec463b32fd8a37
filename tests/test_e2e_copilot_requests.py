"""What the bridge's requests become in Copilot's cloud, through the real Copilot 0.67 provider
(tests/copilot_host.py): reasoning effort, sampling options and Copilot's own defaults, many
tools, tool names Copilot refuses, a required tool among several, stop sequences, images, the
model list, and the usage (prompt caching included) that CAPI reports reaching the client and
the usage ledger. Each test asserts on the request the fake cloud received.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from copilot_cloud import nonce, upstream
from copilot_host import bridge_model_ids, copilot_fixtures
from dialect_calls import DIALECTS, Dialect, Outcome, body_for, call
from fake_capi import FakeCapi
from plain_http import post
from responses_bodies import PNG
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures()

RESPONSES_MODEL = "gpt-5-mini"  # Copilot sends it to /responses
CLAUDE = "claude-sonnet-4.5"  # /v1/messages, and its endpoint supports tool search
GPT = "gpt-4.1"  # /chat/completions, no tool search


def root(host: VSCodeHost) -> str:
    return host.base_url.removesuffix("/v1")


def ask(host: VSCodeHost, dialect: Dialect, model: str, text: str, **options: Any) -> Outcome:
    outcome = call(
        root(host), dialect, body_for(dialect, model, text, **options), stream=True, model=model
    )
    assert outcome.status == 200, f"{outcome}\n{host.diagnostics()}"
    return outcome


def tool(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The {name} tool.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }


def test_the_model_list_has_copilots_models_and_not_its_internal_ones(vscode: VSCodeHost) -> None:
    ids = bridge_model_ids(vscode)
    assert {"gpt-4.1", "gpt-5-mini", CLAUDE, "gemini-2.5-pro"} <= set(ids), ids
    assert not [i for i in ids if i.startswith("copilot-") or i == "gpt-5.6-luna"], ids
    assert ids.count("auto") == 1 and ids[-1] == "auto", ids


@pytest.mark.parametrize("dialect", DIALECTS)
def test_reasoning_effort_reaches_the_cloud(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect
) -> None:
    """Every dialect's effort arrives as the Responses API's `reasoning.effort` (not Copilot's
    default `medium`), and switches on Claude's thinking, which Copilot otherwise never does
    for another extension's request."""
    for effort in ("low", "high"):
        marker = nonce()
        ask(vscode, dialect, RESPONSES_MODEL, f"Think {marker}", effort=effort)
        assert upstream(capi, marker).body["reasoning"]["effort"] == effort
    marker = nonce()
    ask(vscode, dialect, RESPONSES_MODEL, f"Default {marker}")
    assert upstream(capi, marker).body["reasoning"]["effort"] == "medium"  # Copilot's own
    marker = nonce()
    ask(vscode, dialect, CLAUDE, f"Think {marker}", effort="high")
    thinking = upstream(capi, marker).body["thinking"]
    assert thinking["type"] in ("enabled", "adaptive"), thinking
    marker = nonce()
    ask(vscode, dialect, CLAUDE, f"Plain {marker}")
    assert "thinking" not in upstream(capi, marker).body


def test_copilots_defaults_and_the_clients_options(vscode: VSCodeHost, capi: FakeCapi) -> None:
    """Copilot fills in `temperature 0.1` and the model's output limit when the client sets
    neither; what the client sets reaches the cloud instead."""
    marker = nonce()
    ask(vscode, "chat", GPT, f"Defaults {marker}")
    sent = upstream(capi, marker).body
    assert (sent["temperature"], sent["max_tokens"]) == (0.1, 16384), sent
    marker = nonce()
    body = {
        **body_for("chat", GPT, f"Options {marker}", max_tokens=300),
        "temperature": 0.7,
        "stop": ["NEVER-SAID"],
    }
    outcome = call(root(vscode), "chat", body, stream=False)
    assert outcome.status == 200, outcome
    sent = upstream(capi, marker).body
    assert (sent["temperature"], sent["max_tokens"], sent["stop"]) == (0.7, 300, "NEVER-SAID")


def test_a_stop_sequence_ends_the_answer(vscode: VSCodeHost, capi: FakeCapi) -> None:
    marker = nonce()
    body = {**body_for("chat", GPT, f"Stop {marker} here please"), "stop": ["here"]}
    outcome = call(root(vscode), "chat", body, stream=True)
    assert outcome.status == 200, outcome
    assert outcome.text == f"You said: Stop {marker} ", outcome
    assert outcome.finish == "stop"


def test_many_tools_reach_a_tool_search_model_and_not_others(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """Copilot 0.67 lifts its 128-tool limit for models whose endpoint supports tool search
    (Claude 4.5 here), so the bridge sends all 150; for other models it refuses with the
    dialect's clear 400 before anything reaches the cloud."""
    tools = [tool(f"tool_{i}") for i in range(150)]
    marker = nonce()
    outcome = ask(vscode, "messages", CLAUDE, f"Use a tool {marker}", tools=tools)
    assert outcome.tool_calls and outcome.tool_calls[0][0] == "tool_0", outcome
    assert len(upstream(capi, marker).body["tools"]) == 150
    marker = nonce()
    refused = call(
        root(vscode),
        "messages",
        body_for("messages", GPT, f"Use {marker}", tools=tools),
        stream=False,
    )
    assert refused.status == 400, refused
    assert "128" in json.dumps(refused.error), refused
    assert not [r for r in capi.requests if r.body and marker in json.dumps(r.body)]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_dotted_tool_name_goes_up_renamed_and_comes_back_as_the_client_named_it(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect
) -> None:
    """Copilot refuses tool names outside `^[\\w-]+$`; the bridge sends a name it accepts and
    gives the client's own name back on the call."""
    marker = nonce()
    outcome = ask(vscode, dialect, GPT, f"Weather {marker}", tools=[tool("weather.get")])
    assert [name for name, _ in outcome.tool_calls] == ["weather.get"], outcome
    sent = upstream(capi, marker).body["tools"]
    [name] = [t["function"]["name"] for t in sent]
    assert name != "weather.get" and name.replace("-", "_").isidentifier(), name


def test_required_with_several_tools_ends_in_a_call(vscode: VSCodeHost, capi: FakeCapi) -> None:
    """Copilot refuses `Required` with more than one tool; the bridge still honours the
    client's `tool_choice: required`."""
    marker = nonce()
    body = {
        **body_for("chat", GPT, f"Pick one {marker}", tools=[tool("a"), tool("b")]),
        "tool_choice": "required",
    }
    outcome = call(root(vscode), "chat", body, stream=False)
    assert outcome.status == 200, outcome
    assert outcome.finish == "tool" and outcome.tool_calls, outcome
    assert [r for r in capi.requests if r.body and marker in json.dumps(r.body)]


def test_an_image_reaches_the_cloud(vscode: VSCodeHost, capi: FakeCapi) -> None:
    marker = nonce()
    content = [
        {"type": "text", "text": f"Look {marker}"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]
    body = {"model": GPT, "messages": [{"role": "user", "content": content}]}
    outcome = call(root(vscode), "chat", body, stream=False)
    assert outcome.status == 200, outcome
    sent = upstream(capi, marker).body["messages"]
    parts = [p for m in sent if isinstance(m["content"], list) for p in m["content"]]
    urls = [p["image_url"]["url"] for p in parts if p.get("type") == "image_url"]
    assert urls and urls[0].startswith("data:image/png;base64,"), sent


def _today(host: VSCodeHost) -> dict[str, Any]:
    with urllib.request.urlopen(f"{host.base_url}/usage?since=today&recent=0", timeout=10) as r:
        body: dict[str, Any] = json.loads(r.read())
    return body


@pytest.mark.parametrize(("dialect", "model"), [("chat", GPT), ("messages", CLAUDE)])
def test_the_clouds_prompt_cache_reaches_the_client_and_the_ledger(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect, model: str
) -> None:
    """A long prompt sent twice: the second time CAPI reports most of it read from its cache
    (OpenAI: in 128-token steps past 1,024; Anthropic: up to Copilot's `cache_control`
    breakpoints), and the client and the usage ledger see the same numbers."""
    long_text = f"Cache {nonce()} " + " ".join(f"word{i}" for i in range(3000))
    first = ask(vscode, dialect, model, long_text)
    before = _today(vscode)["totals"]
    second = ask(vscode, dialect, model, long_text)
    assert first.usage["cached"] == 0, first.usage
    assert second.usage["cached"] >= 1024, second.usage
    if dialect == "chat":
        assert (second.usage["cached"] - 1024) % 128 == 0, second.usage
    else:
        assert first.usage.get("cache_write", 0) > 0, first.usage
    vscode.wait_for(
        lambda: _today(vscode)["totals"]["requests"] == before["requests"] + 1,
        30,
        "the ledger's row of the second request",
    )
    after = _today(vscode)["totals"]
    assert after["cached_tokens"] - before["cached_tokens"] == second.usage["cached"], after


@pytest.mark.parametrize("model", [GPT, CLAUDE, "gemini-2.5-pro"])
def test_schemas_the_cloud_refuses_arrive_in_a_form_it_takes(
    vscode: VSCodeHost, capi: FakeCapi, model: str
) -> None:
    """Schemas CAPI refuses with a blank 400 (rules of the fake, read from Copilot's own
    schema normalizer, which the `vscode.lm` path skips): `required` naming an undefined
    property, a GPT-4 keyword, a Gemini nullable type list. The bridge reshapes them, so the
    request succeeds and the removed constraint is told to the model in the description."""
    marker = nonce()
    odd = {
        "name": "odd",
        "description": "Odd.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": ["string", "null"], "pattern": "^[A-Z]"}},
            "required": ["city", "ghost"],
        },
    }
    outcome = ask(vscode, "chat", model, f"Odd {marker}", tools=[odd])
    assert outcome.tool_calls and outcome.tool_calls[0][0] == "odd", outcome
    sent = upstream(capi, marker).body["tools"][0]
    schema: dict[str, Any] = sent.get("input_schema") or sent["function"]["parameters"]
    assert schema["required"] == ["city"], sent
    if model == GPT:
        assert "pattern" not in json.dumps(schema), sent
    if model.startswith("gemini"):
        assert schema["properties"]["city"].get("nullable") is True, sent


@pytest.mark.parametrize("model", [GPT, CLAUDE, RESPONSES_MODEL])
def test_an_unpaired_tool_call_never_reaches_the_cloud_unpaired(
    vscode: VSCodeHost, capi: FakeCapi, model: str
) -> None:
    """Copilot 0.67 does not check that every tool call has its result; its cloud refuses one
    that has not (a rule of the fake, as Anthropic's and OpenAI's APIs do). The bridge sends
    such a call as a note in the conversation instead, so the request goes through."""
    marker = nonce()
    call_ = {"id": "call_9", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    body = {
        "model": model,
        "messages": [
            {"role": "user", "content": f"Start {marker}"},
            {"role": "assistant", "content": None, "tool_calls": [call_]},
            {"role": "user", "content": "go on"},
        ],
        "tools": [{"type": "function", "function": tool("f")}],
    }
    outcome = call(root(vscode), "chat", body, stream=False)
    assert outcome.status == 200, outcome
    sent = json.dumps(upstream(capi, marker).body)
    assert "call_9" in sent and "its result is not in the conversation" in sent, sent


def test_tokens_are_counted_with_copilots_tokenizer(vscode: VSCodeHost) -> None:
    """Copilot counts with the model's own tokenizer (o200k): 8 tokens for this sentence,
    where the headless editor's estimate says otherwise."""
    body = {
        "model": GPT,
        "messages": [{"role": "user", "content": "hello world, how are you today?"}],
    }
    reply = post(f"{vscode.base_url}/messages/count_tokens", body)
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"input_tokens": 8}


def test_150_deferred_tools_reach_the_cloud_as_the_search_loads_them(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """150 tools, deferred behind the client's own tool search (Claude Code's ToolSearch and
    `tool_reference` results), to a model whose endpoint has no tool search (Copilot refuses
    more than 128 tools for it): the cloud gets the search alone, then the search and the tools
    it loaded, never the 150."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    search = {"name": "ToolSearch", "description": "Find tools.", "input_schema": schema}
    deferred = [
        {
            "name": f"probe_{i}",
            "description": "A probe.",
            "input_schema": schema,
            "defer_loading": True,
        }
        for i in range(150)
    ]
    marker = nonce()
    first = {
        "model": GPT,
        "max_tokens": 500,
        "tools": [search, *deferred],
        "messages": [{"role": "user", "content": f"Find a probe {marker}"}],
    }
    outcome = call(root(vscode), "messages", first, stream=False)
    assert outcome.status == 200, outcome
    assert [t["function"]["name"] for t in upstream(capi, marker).body["tools"]] == ["ToolSearch"]
    marker = nonce()
    refs = [{"type": "tool_reference", "tool_name": name} for name in ("probe_7", "probe_149")]
    use = {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "p"}}
    second = {
        **first,
        "messages": [
            {"role": "user", "content": "Find a probe"},
            {"role": "assistant", "content": [use]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": refs},
                    {"type": "text", "text": f"Loaded {marker}"},
                ],
            },
        ],
    }
    outcome = call(root(vscode), "messages", second, stream=True)
    assert outcome.status == 200, outcome
    names = [t["function"]["name"] for t in upstream(capi, marker).body["tools"]]
    assert names == ["ToolSearch", "probe_7", "probe_149"], names
