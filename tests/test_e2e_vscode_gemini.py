"""The Gemini dialect through a real VS Code extension host (code-server, headless), as
tests/test_e2e_vscode_dialects.py does for the others: Google's google-genai SDK and plain HTTP
talk to the bridge the Maestro Bridge extension started, and the real GitHub Copilot provider
answers, against a fake of its cloud (tests/copilot_host.py).

    google-genai -> bridge (HTTP, /v1beta) -> lsp (stdio) -> extension -> vscode.lm
                 -> Copilot 0.67 -> fake CAPI (/chat/completions for Gemini)

Every chunk on the wire is checked by tests/gemini_validation.py; what Copilot made of each
request is checked where it arrived, at the fake cloud. Fails under $CI and is skipped
elsewhere when code-server is missing, as the harness is.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from copilot_cloud import (
    GEMINI,
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
from fake_capi import FakeCapi
from gemini_http import as_json, checked
from gemini_validation import check_stream, comparable, parse_sse
from google import genai
from google.genai import types
from plain_http import post
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

MODEL = GEMINI


capi, vscode = copilot_fixtures()


@pytest.fixture
def client(vscode: VSCodeHost) -> Iterator[genai.Client]:
    options = types.HttpOptions(
        base_url=vscode.base_url.removesuffix("/v1"),
        api_version="v1beta",  # as Gemini CLI asks
        retry_options=types.HttpRetryOptions(attempts=1),
        timeout=60_000,
    )
    with genai.Client(api_key="unused", http_options=options) as sdk:
        yield sdk


def test_gemini_stream_from_the_provider(
    client: genai.Client, vscode: VSCodeHost, capi: FakeCapi
) -> None:
    text = f"Hello from the SDK {nonce()}"
    body = {"contents": [{"role": "user", "parts": [{"text": text}]}]}
    url = f"{vscode.base_url.removesuffix('/v1')}/v1beta/models/{MODEL}:streamGenerateContent"
    reply = post(f"{url}?alt=sse", body)
    assert reply.status_code == 200, f"{reply.text}\n{vscode.diagnostics()}"
    sse = parse_sse(reply.text)
    streamed = check_stream(sse.chunks)
    # One chunk per batch of the editor's parts: the provider's small parts may come as one.
    assert streamed["candidates"][0]["content"]["parts"] == [{"text": f"You said: {text}"}]
    # The usage Copilot's cloud billed came through Copilot and the extension as the answer's.
    sent = upstream(capi, text)
    usage = streamed["usageMetadata"]
    assert (usage["promptTokenCount"], usage["candidatesTokenCount"]) == (
        prompt_tokens(sent),
        output_tokens(f"You said: {text}"),
    )
    assert (sent.path, sent.body["model"]) == ("/chat/completions", MODEL)
    last = sent.body["messages"][-1]
    assert (last["role"], text_of(last["content"])) == ("user", text), last
    # The SDK's stream and its non-streaming answer say the same.
    chunks = list(client.models.generate_content_stream(model=MODEL, contents=text))
    assert "".join(c.text or "" for c in chunks) == f"You said: {text}"
    answer = checked(client.models.generate_content(model=MODEL, contents=text))
    assert comparable(as_json(answer)) == comparable(streamed)
    assert len(sent_with(capi, text)) == 3


def test_gemini_function_call_round_trip(client: genai.Client, capi: FakeCapi) -> None:
    """The model's call (a script rule of the fake cloud) reaches the client as a Gemini
    functionCall; the client's functionResponse goes up as the chat API's tool message,
    paired with the call Copilot sent back."""
    weather = types.FunctionDeclaration(
        name="get_weather",
        description="The current weather in a city.",
        parameters_json_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    )
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[weather])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    marker = nonce()
    rules = [
        call_rule(f"weather in Paris {marker}", "get_weather", {"city": "Paris"}),
        text_rule(f"sunny {marker}", "It is sunny in Paris."),
    ]
    question = types.Content(
        role="user", parts=[types.Part(text=f"What is the weather in Paris {marker}?")]
    )
    with scripted(capi, rules):
        first = checked(
            client.models.generate_content(model=MODEL, contents=[question], config=config)
        )
        [call] = first.function_calls or []
        assert (call.name, call.args) == ("get_weather", {"city": "Paris"}), first
        model_turn = (first.candidates or [])[0].content
        assert model_turn is not None
        result = types.Part.from_function_response(
            name="get_weather", response={"result": f"sunny {marker}"}
        )
        assert result.function_response is not None
        result.function_response.id = call.id
        contents = [question, model_turn, types.Content(role="user", parts=[result])]
        second = checked(
            client.models.generate_content(model=MODEL, contents=contents, config=config)
        )
    assert second.text == "It is sunny in Paris.", second
    asked, answered = sent_with(capi, marker)
    [offered] = asked.body["tools"]
    assert offered["function"]["name"] == "get_weather", offered
    assert offered["function"]["parameters"]["required"] == ["city"], offered
    assistant, tool = answered.body["messages"][-2:]
    [sent_call] = assistant["tool_calls"]
    assert sent_call["function"]["name"] == "get_weather", assistant
    assert json.loads(sent_call["function"]["arguments"]) == {"city": "Paris"}, assistant
    assert tool["role"] == "tool" and tool["tool_call_id"] == sent_call["id"], tool
    assert f"sunny {marker}" in text_of(tool["content"]), tool


def test_gemini_thoughts_from_the_provider(client: genai.Client, capi: FakeCapi) -> None:
    """A thinking level reaches GPT-5 mini (Copilot's Responses API) as its reasoning effort;
    the reasoning summary the cloud streams comes back as the answer's thought parts, before
    its text, and its reasoning tokens as `thoughtsTokenCount` (which Claude's usage through
    Copilot lacks)."""
    prompt = f"Think {nonce()}"
    config = types.GenerateContentConfig(
        thinking_config=types.ThinkingConfig(
            include_thoughts=True, thinking_level=types.ThinkingLevel.HIGH
        )
    )
    answer = checked(
        client.models.generate_content(model=RESPONSES_MODEL, contents=prompt, config=config)
    )
    parts = (answer.candidates or [])[0].content.parts or []  # type: ignore[union-attr]
    thoughts = [bool(p.thought) for p in parts if p.text]
    assert thoughts == sorted(thoughts, reverse=True), parts  # thoughts first
    assert "".join(p.text or "" for p in parts if p.thought) == thinking_of(prompt), parts
    assert "".join(p.text or "" for p in parts if not p.thought) == f"You said: {prompt}"
    assert upstream(capi, prompt).body["reasoning"]["effort"] == "high"
