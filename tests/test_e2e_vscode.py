"""End to end through a real VS Code extension host (code-server, headless): the openai SDK
talks to the bridge that the Maestro Bridge extension (the VSIX built from editor-client/)
started, and the extension answers with vscode.lm, where the real GitHub Copilot provider
(Copilot Chat 0.67) serves its models from a fake of Copilot's cloud (tests/copilot_host.py).

    openai SDK -> bridge (HTTP) -> lsp (stdio) -> extension -> vscode.lm -> Copilot 0.67
               -> fake CAPI

Everything between the SDK and the cloud is the real thing; what Copilot made of a request is
checked where it arrived, at the fake cloud. A second test extension
(editor-client/test-fixtures/scripted-model) provides a scripted chat model too: the tests that
need what Copilot cannot do on demand (an answer that never ends, a flood of parts, VS Code's
error codes, a host with a single model) use it, and say why. See vscode_host.py for the
harness; the other dialects through the same host: tests/test_e2e_vscode_dialects.py.

One VS Code runs for the whole module. The tests from `test_restart_command...` on change its
state (restart, settings, a private install) and move the bridge to a new port; each of them
leaves `vscode.base_url` pointing at the bridge that runs afterwards.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from conftest import is_running
from copilot_cloud import (
    CLAUDE,
    GPT,
    RESPONSES_MODEL,
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
from fake_capi import MODELS, FakeCapi
from openai import OpenAI
from openai.types.responses import FunctionToolParam, ResponseInputParam
from spec_validation import validate_response, validate_stream
from vscode_host import (
    FIRST_WINDOW,
    STARTUP_TIMEOUT,
    VSCodeHost,
    close_window,
    find_tools,
    free_port,
    last_requests,
    open_window,
    start_host,
    stop_host,
)

pytestmark = pytest.mark.timeout(600)

MODEL = GPT  # Copilot's, upstream on the chat completions API
# The test extension's model, for what Copilot cannot do on demand.
SCRIPTED = "scripted-model"
WEATHER_TOOL: FunctionToolParam = {
    "type": "function",
    "name": "get_weather",
    "description": "The current weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}


capi, vscode = copilot_fixtures()


@pytest.fixture
def client(vscode: VSCodeHost) -> Iterator[OpenAI]:
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        yield sdk


def as_json(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True, warnings=False)
    return data


def states_since(vscode: VSCodeHost, seen: int) -> list[dict[str, Any]]:
    """The extension's states after the first `seen` ones."""
    return [e["state"] for e in vscode.records("bridge-state")[seen:]]


def ready_states(vscode: VSCodeHost, seen: int) -> list[dict[str, Any]]:
    """The ready states of the first (re)start after the first `seen` states: the count of
    requests in flight of the server before, which the status shows late, is no restart."""
    states = states_since(vscode, seen)
    starts = [i for i, s in enumerate(states) if s["kind"] == "starting"]
    return [s for s in states[starts[0] :] if s["kind"] == "ready"] if starts else []


def extension_log(vscode: VSCodeHost) -> str:
    """What the Maestro Bridge extension logged (its output channel, at debug), every window."""
    logs = vscode.root.glob("user-data/logs/*/exthost*/output_logging_*/*Maestro Bridge.log")
    return "".join(path.read_text(encoding="utf-8", errors="replace") for path in logs)


def last_request(vscode: VSCodeHost) -> dict[str, Any]:
    """The last request the scripted provider got."""
    return last_requests(vscode, 1)[0]


def test_the_extension_started_the_bridge(vscode: VSCodeHost) -> None:
    assert vscode.base_url.startswith("http://127.0.0.1:")
    assert vscode.base_url.endswith("/v1")
    assert len(vscode.lsp_pids()) == 1, vscode.diagnostics()


def test_models_lists_the_provider_model(client: OpenAI) -> None:
    """Copilot's model, with its maker and its window (from the fake cloud's limits), and the
    test extension's beside it."""
    models = {m.id: m for m in client.models.list()}
    assert {MODEL, SCRIPTED} <= models.keys(), list(models)
    listed = as_json(models[MODEL])
    assert listed["owned_by"] == "copilot", listed
    [catalogued] = [m for m in MODELS if m.id == MODEL]
    # Copilot's window for it: the cloud's prompt limit less the output limit Copilot keeps
    # room for, and a little of its own (111,409 with Copilot 0.67).
    room = catalogued.max_prompt - catalogued.max_output
    assert room - 1024 < listed["max_input_tokens"] <= room, listed
    assert as_json(models[SCRIPTED])["max_input_tokens"] == 100000


def test_streams_text_from_the_provider(client: OpenAI, capi: FakeCapi) -> None:
    text = f"Hello from the SDK {nonce()}"
    with client.responses.stream(model=MODEL, input=text) as stream:
        events = [as_json(e) for e in stream]
        final = stream.get_final_response()
    validate_stream(events)
    deltas = [e["delta"] for e in events if e["type"] == "response.output_text.delta"]
    assert "".join(deltas) == f"You said: {text}"
    assert len(deltas) > 1  # streamed, not one lump
    assert final.output_text == f"You said: {text}"
    # The usage Copilot's cloud billed came through Copilot and the extension as the answer's.
    sent = upstream(capi, text)
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens) == (
        prompt_tokens(sent),
        output_tokens(f"You said: {text}"),
    )
    assert (sent.path, sent.body["model"]) == ("/chat/completions", MODEL)
    last = sent.body["messages"][-1]
    assert (last["role"], text_of(last["content"])) == ("user", text), last


def test_a_long_answer_flows_through_the_window(client: OpenAI) -> None:
    """More parts than the flow-control window (4096): the extension waits for the server's
    `maestro/chatAck` credit and resumes, so every part arrives, in order, and nothing stalls.
    On the scripted model: only it answers in as many parts as a test asks (`[many N]`)."""
    count = 20_000
    with client.with_options(timeout=60).responses.stream(
        model=SCRIPTED, input=f"[many {count}]"
    ) as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == "w " * count
    assert final.status == "completed"


def test_function_tool_round_trip(client: OpenAI, capi: FakeCapi) -> None:
    """A Responses function tool on GPT-5 mini, whose upstream is Copilot's Responses API: the
    tool's schema reaches the cloud intact, the model's call (a script rule) comes back to
    the client, and the client's output goes up paired with it."""
    marker = nonce()
    question = f"What is the weather in Paris {marker}?"
    rules = [
        call_rule(f"weather in Paris {marker}", "get_weather", {"city": "Paris"}),
        text_rule(f"sunny, 21 C {marker}", "It is sunny in Paris."),
    ]
    with scripted(capi, rules):
        first = client.responses.create(model=RESPONSES_MODEL, input=question, tools=[WEATHER_TOOL])
        validate_response(as_json(first))
        calls = [item for item in first.output if item.type == "function_call"]
        assert len(calls) == 1, first.output
        call = calls[0]
        assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Paris"})
        assert first.usage is not None and first.usage.input_tokens > 0
        history: ResponseInputParam = [
            {"role": "user", "content": question},
            {
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": call.arguments,
            },
            {
                "type": "function_call_output",
                "call_id": call.call_id,
                "output": f"sunny, 21 C {marker}",
            },
        ]
        second = client.responses.create(model=RESPONSES_MODEL, input=history, tools=[WEATHER_TOOL])
    validate_response(as_json(second))
    assert second.output_text == "It is sunny in Paris."
    asked, answered = sent_with(capi, marker)
    assert {asked.path, answered.path} == {"/responses"}
    # The tool's JSON schema reached the cloud intact.
    [offered] = asked.body["tools"]
    assert (offered["name"], offered["parameters"]) == ("get_weather", WEATHER_TOOL["parameters"])
    items = answered.body["input"]
    [sent_call] = [i for i in items if i.get("type") == "function_call"]
    [sent_output] = [i for i in items if i.get("type") == "function_call_output"]
    assert (sent_call["name"], json.loads(sent_call["arguments"])) == (
        "get_weather",
        {"city": "Paris"},
    ), sent_call
    assert sent_output["call_id"] == sent_call["call_id"], items
    assert text_of(sent_output["output"]) == f"sunny, 21 C {marker}", sent_output
    assert items.index(sent_call) < items.index(sent_output), items


def test_thinking_parts_become_reasoning(client: OpenAI, capi: FakeCapi) -> None:
    """A reasoning effort switches on Claude's thinking through Copilot; the thinking the
    cloud streams comes back as a reasoning item before the message."""
    prompt = f"Think {nonce()}"
    response = client.responses.create(model=CLAUDE, input=prompt, reasoning={"effort": "high"})
    validate_response(as_json(response))
    assert [item.type for item in response.output] == ["reasoning", "message"]
    reasoning = as_json(response.output[0])
    texts = [p["text"] for key in ("summary", "content") for p in reasoning.get(key) or []]
    assert thinking_of(prompt) in "".join(texts), reasoning
    assert response.output_text == f"You said: {prompt}"
    assert "thinking" in upstream(capi, prompt).body


def test_unknown_model_is_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="no-such-model", input="hi")
    assert caught.value.status_code == 404
    body = caught.value.body
    assert isinstance(body, dict) and body.get("code") == "model_not_found", body


def test_provider_errors_keep_their_code(client: OpenAI) -> None:
    """On the scripted model: Copilot throws VS Code's LanguageModelError codes only in states
    the fake cloud cannot put it in (no access, a model gone); its quota and rate-limit errors
    are tests/test_e2e_copilot.py's."""
    # LanguageModelError.NotFound thrown by the provider reaches the client as a 404 ...
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model=SCRIPTED, input="[notfound]")
    # ... and Blocked as a 429.
    with pytest.raises(openai.RateLimitError) as caught:
        client.responses.create(model=SCRIPTED, input="[blocked]")
    assert caught.value.status_code == 429


def test_the_extension_counts_a_long_input_and_refuses_it_past_the_window(
    client: OpenAI, vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """The extension counts an input that may not fit (`countInput`) with Copilot's
    `model.countTokens` and refuses one over the model's window before Copilot is asked (the
    fake cloud gets nothing); one that fits is answered."""
    [listed] = [as_json(m) for m in client.models.list() if m.id == MODEL]
    window = int(listed["max_input_tokens"])
    marker = nonce()
    with pytest.raises(openai.BadRequestError) as caught:
        # ~1.25 tokens a word for any tokenizer: past the window.
        client.responses.create(model=MODEL, input=f"{marker} " + "word " * (window * 5 // 4))
    body = caught.value.body
    assert isinstance(body, dict), body
    assert (body.get("code"), body.get("param")) == ("context_length_exceeded", "input"), body
    assert f"more than the {window} tokens" in str(body.get("message")), body
    assert not sent_with(capi, marker)  # Copilot never asked the cloud
    # The extension counted and refused it (not the server for an older editor).
    vscode.wait_for(
        lambda: f"over the window of {window}" in extension_log(vscode),
        30,
        "the extension's count",
    )

    history: ResponseInputParam = [
        {"role": "user", "content": f"{marker} " + "word " * (window // 2)},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Short answer, please."},
    ]
    fits = client.responses.create(model=MODEL, input=history)
    assert fits.output_text == "You said: Short answer, please."
    assert len(sent_with(capi, marker)) == 1


def test_client_disconnect_cancels_the_provider(client: OpenAI, vscode: VSCodeHost) -> None:
    """On the scripted model: only it talks until cancelled (`[slow]`), and records that its
    cancellation token fired."""
    before = len(vscode.records("cancelled"))
    with client.responses.stream(model=SCRIPTED, input="[slow] keep talking") as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                break  # the model is streaming: now go away
    # Closing the stream dropped the connection: the provider's token must be cancelled.
    vscode.wait_for(
        lambda: len(vscode.records("cancelled")) > before, 30, "the provider's cancellation"
    )
    assert not vscode.records("slow-timeout")
    # And the bridge still serves.
    assert client.responses.create(model=SCRIPTED, input="still there?").output_text == (
        "You said: still there?"
    )


def test_status_bar_shows_the_port_and_requests_in_flight(
    vscode: VSCodeHost, client: OpenAI
) -> None:
    """On the scripted model: a request stays in flight as long as the test looks (`[slow]`)."""
    port = vscode.base_url.removesuffix("/v1").rsplit(":", 1)[1]

    def shows(expected: str) -> bool:
        return " ".join(vscode.status_bar().split()) == expected

    vscode.wait_for(lambda: shows(f"Maestro :{port}"), 30, "the status bar item")
    with client.responses.stream(model=SCRIPTED, input="[slow] status") as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                break
        vscode.wait_for(lambda: shows(f"Maestro :{port} 1"), 30, "one request in flight")
    vscode.wait_for(lambda: shows(f"Maestro :{port}"), 30, "no request in flight")


def test_the_command_copies_the_url(vscode: VSCodeHost) -> None:
    assert vscode.run_command("maestroBridge.copyEndpointUrl") == vscode.base_url


def test_commands_copy_a_codex_config_and_authorize_the_model(vscode: VSCodeHost) -> None:
    """With several chat models the commands ask which one, in a quick pick: the test
    extension's Scripted Model, picked as a person would (drive.js) both times."""
    config = vscode.run_command_picking("maestroBridge.copyCodexConfig", f"· {SCRIPTED}")
    assert f'base_url = "{vscode.base_url}"' in config
    assert f'model = "{SCRIPTED}"' in config
    vscode.run_command_picking("maestroBridge.authorizeModelAccess", f"· {SCRIPTED}")
    first = last_request(vscode)["messages"]
    assert first == [
        {"role": "user", "content": [{"type": "text", "value": "Reply with the single word OK."}]}
    ]


def test_restart_command_starts_a_new_server(vscode: VSCodeHost) -> None:
    [old_pid] = vscode.lsp_pids()
    seen = len(vscode.records("bridge-state"))
    vscode.run_command("maestroBridge.restart")
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 60, "the bridge to restart")
    vscode.base_url = ready[-1]["url"]
    vscode.wait_for(lambda: not is_running(old_pid), 15, "the old language server to exit")
    [new_pid] = vscode.lsp_pids()
    assert new_pid != old_pid


def test_port_in_use_is_an_error_state(vscode: VSCodeHost) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        seen = len(vscode.records("bridge-state"))
        vscode.update_settings({"maestroBridge.port": port})
        errors = vscode.wait_for(
            lambda: [s for s in states_since(vscode, seen) if s["kind"] == "error"],
            60,
            "the bind failure to be reported",
        )
        assert f"Cannot listen on 127.0.0.1:{port}" in errors[-1]["message"]
        vscode.wait_for(lambda: ":" not in vscode.status_bar(), 30, "the status bar's error")
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.port": 0})
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 60, "the bridge to recover")
    vscode.base_url = ready[-1]["url"]


def test_missing_package_offers_a_private_install(
    vscode: VSCodeHost, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A Python without maestro-bridge: the extension says so and offers to install it.
    bare = tmp_path_factory.mktemp("bare-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    seen = len(vscode.records("bridge-state"))
    # No maestroBridge.packageSpec: the install uses the wheel inside the VSIX, and only the
    # dependencies come from the package index (maestro-bridge itself is not published).
    vscode.update_settings({"maestroBridge.pythonPath": str(bare / "bin" / "python")})
    errors = vscode.wait_for(
        lambda: [s for s in states_since(vscode, seen) if s["kind"] == "error"],
        60,
        "the missing package to be reported",
    )
    assert "maestro-bridge is not installed" in errors[-1]["message"]
    vscode.wait_for(lambda: ":" not in vscode.status_bar(), 30, "the status bar's error state")
    vscode.wait_for(lambda: vscode.lsp_pids() == [], 15, "the old language server to exit")

    # Accept, as a person would: it creates a private venv and pip-installs the package.
    seen = len(vscode.records("bridge-state"))
    vscode.click("Install")
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 400, "the private install")
    vscode.base_url = ready[-1]["url"]
    [pid] = vscode.lsp_pids()
    python = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    assert python.endswith("/venv/bin/python"), python
    assert not python.startswith(str(bare)), python
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        assert sdk.responses.create(model=MODEL, input="hi").output_text == "You said: hi"
    # It came from the wheel the installed extension carries, and holds all three packages.
    installed = json.loads(
        run_python(
            python,
            "import importlib.metadata as m, sys; "
            "sys.stdout.write(m.distribution('maestro-bridge').read_text('direct_url.json'))",
        )
    )
    wheel = Path(installed["url"].removeprefix("file://"))
    assert wheel.suffix == ".whl", installed
    assert wheel.is_relative_to(vscode.root / "extensions"), installed
    venv = Path(python).parents[1]
    for package in ("bridge", "lsp", "headless_editor"):
        location = run_python(python, f"import {package}; print({package}.__file__)").strip()
        assert Path(location).is_relative_to(venv), (package, location)


def run_python(python: str, code: str) -> str:
    # Run outside this checkout, whose bridge/ would shadow the installed package.
    done = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd="/", check=True, timeout=60
    )
    return done.stdout


def test_bridge_settings_reach_the_server(vscode: VSCodeHost, capi: FakeCapi) -> None:
    # One setting per change: each change restarts the bridge once.
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.modelAliases": {"gpt-5.5": MODEL}})
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 60, "the restart with an alias")
    vscode.base_url = ready[-1]["url"]
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        marker = nonce()
        response = sdk.responses.create(model="gpt-5.5", input=f"aliased {marker}")
        validate_response(as_json(response))
        assert response.output_text == f"You said: aliased {marker}"
        assert response.model == "gpt-5.5"  # the name the client asked for ...
        assert upstream(capi, marker).body["model"] == MODEL  # ... answered by Copilot's model
        listed = {m.id: as_json(m) for m in sdk.models.list()}
        assert listed["gpt-5.5"]["alias_for"] == MODEL
        assert listed[MODEL].get("alias_for") is None

    # A limit: no tools allowed any more.
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.limits.maxTools": 0})
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 60, "the restart with a limit")
    vscode.base_url = ready[-1]["url"]
    with OpenAI(base_url=vscode.base_url, api_key="unused", max_retries=0, timeout=60) as sdk:
        with pytest.raises(openai.BadRequestError) as caught:
            sdk.responses.create(model=MODEL, input="hi", tools=[WEATHER_TOOL])
        body = caught.value.body
        assert isinstance(body, dict) and body.get("param") == "tools", body
        # The alias set before is still there: every setting is read on each restart.
        assert sdk.responses.create(model="gpt-5.5", input="hi").output_text == "You said: hi"

    # Out of range: the server refuses to start, and the error names the setting.
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.limits.maxJsonDepth": 1})
    errors = vscode.wait_for(
        lambda: [s for s in states_since(vscode, seen) if s["kind"] == "error"],
        60,
        "the invalid limit to be reported",
    )
    assert "maxJsonDepth" in errors[-1]["message"], errors[-1]
    # The server that refused to start does not stay behind.
    vscode.wait_for(lambda: vscode.lsp_pids() == [], 15, "the refused server to exit")
    seen = len(vscode.records("bridge-state"))
    vscode.update_settings({"maestroBridge.limits.maxJsonDepth": 100})
    ready = vscode.wait_for(lambda: ready_states(vscode, seen), 60, "the bridge to recover")
    vscode.base_url = ready[-1]["url"]


def test_settings_change_restarts_the_bridge(vscode: VSCodeHost) -> None:
    # Runs last: it leaves the bridge on a new port with an API key.
    [old_pid] = vscode.lsp_pids()
    seen = len(vscode.records("bridge-state"))

    def states_since() -> list[dict[str, Any]]:
        return [e["state"] for e in vscode.records("bridge-state")[seen:]]

    vscode.update_settings({"maestroBridge.enable": False})
    vscode.wait_for(
        lambda: any(s["kind"] == "stopped" for s in states_since()), 60, "the bridge to stop"
    )
    # Stopped politely (LSP shutdown and exit), not left behind.
    vscode.wait_for(lambda: not is_running(old_pid), 15, "the language server to exit")
    assert vscode.lsp_pids() == []

    seen = len(vscode.records("bridge-state"))
    key = "e2e-secret-key"
    vscode.update_settings({"maestroBridge.apiKey": key, "maestroBridge.enable": True})
    ready = vscode.wait_for(
        lambda: [s for s in states_since() if s["kind"] == "ready"], 60, "the bridge to restart"
    )
    url = ready[-1]["url"]
    [new_pid] = vscode.lsp_pids()
    assert new_pid != old_pid
    # The new settings reached the server: the API key is now required.
    with (
        OpenAI(base_url=url, api_key="wrong", max_retries=0, timeout=60) as sdk,
        pytest.raises(openai.AuthenticationError),
    ):
        sdk.models.list()
    with OpenAI(base_url=url, api_key=key, max_retries=0, timeout=60) as sdk:
        assert MODEL in {m.id for m in sdk.models.list()}


# --------------------------------------------------------------------------- several windows

SECOND_WINDOW = "second-window"
GRACE_SECONDS = 5  # code-server keeps a closed window's extension host this long


@pytest.fixture
def two_windows(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VSCodeHost]:
    """A VS Code of its own whose windows share one fixed port; it starts with one window.
    Not a Copilot host: the test tells the windows apart by the scripted model's record of
    which window answered (the fake cloud gets the same request from either window's
    Copilot), and Copilot's start-up in it would only add time."""
    tools = find_tools()
    host = start_host(
        tools,
        tmp_path_factory.mktemp("vscode-windows"),
        settings={"maestroBridge.port": free_port()},
        reconnection_grace_seconds=GRACE_SECONDS,
    )
    try:
        yield host
    finally:
        left = stop_host(host)
    assert not left, f"language servers outlived VS Code: {left}\n{host.diagnostics()}"


def shows(text: str, expected: str) -> bool:
    return " ".join(text.split()) == expected


def test_a_second_window_stands_by_and_takes_over(two_windows: VSCodeHost) -> None:
    vscode = two_windows
    url = vscode.base_url
    port = url.removesuffix("/v1").rsplit(":", 1)[1]
    [first_lsp] = vscode.lsp_pids()

    # The second window's language server finds the port served by the first: it stands by,
    # which is not an error.
    open_window(vscode, SECOND_WINDOW)
    settled = vscode.wait_for(
        lambda: [
            s for s in vscode.states(SECOND_WINDOW) if s["kind"] not in ("stopped", "starting")
        ],
        STARTUP_TIMEOUT,
        "the second window's bridge",
    )
    assert settled == [{"kind": "standby", "url": url}], vscode.diagnostics()
    vscode.wait_for(
        lambda: shows(vscode.status_bar(SECOND_WINDOW), f"Maestro :{port} (other window)"),
        30,
        "the second window's status bar",
    )
    assert shows(vscode.status_bar(), f"Maestro :{port}")
    assert len(vscode.lsp_pids()) == 2, vscode.diagnostics()

    # Its commands give the endpoint's URL, and its status says who serves.
    assert vscode.run_command("maestroBridge.copyEndpointUrl", window=SECOND_WINDOW) == url
    status = {"command": "maestroBridge.showStatus"}
    request_id = vscode.send_control(status, SECOND_WINDOW)
    said = vscode.click("Copy URL", window=SECOND_WINDOW)  # the status stays up until then
    assert f"served by another window at {url}" in said, said
    assert vscode.control_answer(request_id, status, 60)["clipboard"] == url

    # The first window serves.
    with OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=60) as sdk:
        assert sdk.responses.create(model=SCRIPTED, input="first").output_text == "You said: first"
    assert last_request(vscode)["window"] == FIRST_WINDOW

    # Close it: the second window takes over the same URL, and clients keep getting answers.
    close_window(vscode, FIRST_WINDOW)
    with OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=10) as sdk:

        def answered_by_the_second_window() -> bool:
            try:
                text = sdk.responses.create(model=SCRIPTED, input="second").output_text
            except (openai.APIConnectionError, openai.InternalServerError):
                return False  # the port changes hands
            assert text == "You said: second"
            return bool(last_request(vscode)["window"] == SECOND_WINDOW)

        vscode.wait_for(answered_by_the_second_window, 120, "the second window to serve")
    assert vscode.states(SECOND_WINDOW)[-1] == {"kind": "ready", "url": url, "inFlight": 0}
    vscode.wait_for(
        lambda: shows(vscode.status_bar(SECOND_WINDOW), f"Maestro :{port}"),
        30,
        "the second window's status bar to show it serves",
    )
    vscode.wait_for(lambda: not is_running(first_lsp), 30, "the first window's server to exit")
    assert not any(s["kind"] == "error" for s in vscode.states(SECOND_WINDOW))
