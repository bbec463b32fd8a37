"""The Gemini dialect through a real VS Code extension host (code-server, headless), as
tests/test_e2e_vscode_dialects.py does for the others: Google's google-genai SDK and plain HTTP
talk to the bridge the Maestro Bridge extension started, the scripted `vscode.lm` provider
answers.

    google-genai -> bridge (HTTP, /v1beta) -> lsp (stdio) -> extension -> vscode.lm -> provider

Every chunk on the wire is checked by tests/gemini_validation.py. Fails under $CI and is
skipped elsewhere when code-server is missing, as the harness is.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gemini_http import as_json, checked
from gemini_validation import check_stream, comparable, parse_sse
from google import genai
from google.genai import types
from plain_http import post
from vscode_host import VSCodeHost, host_fixture, last_requests

pytestmark = pytest.mark.timeout(600)

MODEL = "scripted-model"


vscode = host_fixture()


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


def test_gemini_stream_from_the_provider(client: genai.Client, vscode: VSCodeHost) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "Hello from the SDK"}]}]}
    url = f"{vscode.base_url.removesuffix('/v1')}/v1beta/models/{MODEL}:streamGenerateContent"
    reply = post(f"{url}?alt=sse", body)
    assert reply.status_code == 200, f"{reply.text}\n{vscode.diagnostics()}"
    sse = parse_sse(reply.text)
    streamed = check_stream(sse.chunks)
    # One chunk per batch of the editor's parts: the provider's small parts may come as one.
    assert streamed["candidates"][0]["content"]["parts"] == [
        {"text": "You said: Hello from the SDK"}
    ]
    # The provider's `usage` data part came through the extension as the answer's usage.
    usage = streamed["usageMetadata"]
    assert (usage["promptTokenCount"], usage["candidatesTokenCount"]) == (11, 7)
    [request] = last_requests(vscode, 1)
    assert request["model"] == MODEL
    assert request["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "value": "Hello from the SDK"}],
    }
    # The SDK's stream and its non-streaming answer say the same.
    chunks = list(client.models.generate_content_stream(model=MODEL, contents="Hello from the SDK"))
    assert "".join(c.text or "" for c in chunks) == "You said: Hello from the SDK"
    answer = checked(client.models.generate_content(model=MODEL, contents="Hello from the SDK"))
    assert comparable(as_json(answer)) == comparable(streamed)


def test_gemini_function_call_round_trip(client: genai.Client, vscode: VSCodeHost) -> None:
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
    question = types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")])
    first = checked(client.models.generate_content(model=MODEL, contents=[question], config=config))
    [call] = first.function_calls or []
    assert (call.id, call.name, call.args) == ("call_w1", "get_weather", {"city": "Paris"})
    model_turn = (first.candidates or [])[0].content
    assert model_turn is not None
    result = types.Part.from_function_response(name="get_weather", response={"result": "sunny"})
    assert result.function_response is not None
    result.function_response.id = call.id
    contents = [question, model_turn, types.Content(role="user", parts=[result])]
    checked(client.models.generate_content(model=MODEL, contents=contents, config=config))
    [request] = last_requests(vscode, 1)
    [sent_call] = [p for p in request["messages"][-2]["content"] if p["type"] == "toolCall"]
    assert sent_call == {
        "type": "toolCall",
        "callId": "call_w1",
        "name": "get_weather",
        "input": {"city": "Paris"},
    }
    [sent_result] = request["messages"][-1]["content"]
    assert sent_result["type"] == "toolResult" and sent_result["callId"] == "call_w1"


def test_gemini_thoughts_from_the_provider(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        thinking_config=types.ThinkingConfig(include_thoughts=True)
    )
    answer = checked(
        client.models.generate_content(model=MODEL, contents="[think] about it", config=config)
    )
    parts = (answer.candidates or [])[0].content.parts or []  # type: ignore[union-attr]
    assert [(p.text, bool(p.thought)) for p in parts] == [
        ("Thinking it over.", True),
        ("Thought about it.", False),
    ]
