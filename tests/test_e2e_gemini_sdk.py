"""End to end with Google's real `google-genai` Python SDK against a real `maestro-bridge serve`:
generate_content, streams (the wire, the SDK's objects and the non-streaming answer agree),
chats, thinking, stop sequences, max_output_tokens, count_tokens, models, the async client, an
image, keepalives (errors: tests/test_e2e_gemini_errors.py; tools and JSON:
tests/test_e2e_gemini_tools.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import BridgeServer, StartServer
from gemini_http import (
    ECHO,
    HELLO,
    as_json,
    checked,
    folded,
    make_client,
    model_url,
    pause,
    raw_stream,
    script_rule,
    text,
)
from gemini_validation import (
    check_stream,
    comparable,
    parse_json_array,
    validate_count,
    validate_model,
    validate_models,
)
from google import genai
from google.genai import types
from plain_http import post

from headless_editor.copilot.prompt import BASE_PROMPT_TOKENS


@pytest.fixture
def client(bridge_server: BridgeServer) -> Iterator[genai.Client]:
    with make_client(bridge_server) as sdk:
        yield sdk


SLOW_WORDS = {
    "rules": [
        script_rule(
            "count slowly",
            text("One, "),
            pause(0.05),
            text("two, "),
            pause(0.05),
            text("three."),
        )
    ]
}


def test_generate_content(client: genai.Client) -> None:
    response = checked(client.models.generate_content(model="sim-echo", contents=HELLO))
    assert response.text == ECHO
    candidate = (response.candidates or [])[0]
    assert candidate.finish_reason == types.FinishReason.STOP and candidate.index == 0
    assert candidate.content is not None and candidate.content.role == "model"
    assert response.model_version == "sim-echo"
    assert response.response_id is not None and response.response_id.startswith("AM-")
    usage = response.usage_metadata
    assert usage is not None and usage.prompt_token_count and usage.candidates_token_count
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count


def test_system_instruction_config_and_models_prefix(client: genai.Client) -> None:
    config = types.GenerateContentConfig(
        system_instruction="Answer briefly.", temperature=0.2, top_p=0.9, seed=7
    )
    response = client.models.generate_content(
        model="models/sim-echo", contents="The question.", config=config
    )
    assert response.text == "You said: The question."


def test_stream_wire_sdk_and_plain_answer_agree(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory(script=SLOW_WORDS)
    body = {"contents": [{"role": "user", "parts": [{"text": "count slowly"}]}]}
    _, sse = raw_stream(server, "sim-echo", body)
    assert len(sse.chunks) >= 3 and sse.keepalives == 0
    assert [c["candidates"][0].get("finishReason") for c in sse.chunks[:-1]] == [None] * (
        len(sse.chunks) - 1
    )
    assert sse.chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert all("usageMetadata" not in c for c in sse.chunks[:-1])
    assert len({c["responseId"] for c in sse.chunks}) == 1
    wire = check_stream(sse.chunks)
    assert wire["candidates"][0]["content"]["parts"] == [{"text": "One, two, three."}]
    with make_client(server) as sdk:
        chunks = list(sdk.models.generate_content_stream(model="sim-echo", contents="count slowly"))
        assert "".join(c.text or "" for c in chunks) == "One, two, three."
        assert len(chunks) >= 3  # how the editor's parts batch varies from run to run
        from_sdk = folded(chunks)
        plain = checked(sdk.models.generate_content(model="sim-echo", contents="count slowly"))
    assert comparable(from_sdk) == comparable(wire)
    assert comparable(as_json(plain)) == comparable(wire)
    # The same stream without alt=sse: one JSON array of the same chunks.
    reply = post(model_url(server, "sim-echo", "streamGenerateContent"), body)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/json")
    assert comparable(check_stream(parse_json_array(reply.text))) == comparable(wire)


def test_chat_session_keeps_the_history(client: genai.Client) -> None:
    chat = client.chats.create(model="sim-echo")
    first = chat.send_message("The first question.")
    assert first.text == "You said: The first question."
    second = "".join(c.text or "" for c in chat.send_message_stream("The second one."))
    assert second == "You said: The second one."
    # The SDK keeps one model entry per streamed chunk (how many varies with the batching).
    history = chat.get_history()
    assert [c.role for c in history[:3]] == ["user", "model", "user"]
    assert {c.role for c in history[3:]} == {"model"}
    texts = ["".join(p.text or "" for p in c.parts or []) for c in history]
    assert texts[:3] == ["The first question.", "You said: The first question.", "The second one."]
    assert "".join(texts[3:]) == "You said: The second one."


def test_thoughts_only_when_asked(client: genai.Client) -> None:
    # A budget makes Copilot's Claude think at all; include_thoughts shows it.
    thinking = types.ThinkingConfig(include_thoughts=True, thinking_budget=1024)
    asked = types.GenerateContentConfig(thinking_config=thinking)
    response = checked(
        client.models.generate_content(model="sim-reasoning", contents=HELLO, config=asked)
    )
    parts = (response.candidates or [])[0].content.parts or []  # type: ignore[union-attr]
    thoughts = [p.text for p in parts if p.thought]
    assert thoughts and "Considering the request" in (thoughts[0] or "")
    assert response.text == ECHO  # the SDK's text leaves thoughts out
    usage = response.usage_metadata
    assert usage is not None and usage.thoughts_token_count
    assert usage.total_token_count == (
        (usage.prompt_token_count or 0)
        + (usage.candidates_token_count or 0)
        + usage.thoughts_token_count
    )
    streamed = list(
        client.models.generate_content_stream(model="sim-reasoning", contents=HELLO, config=asked)
    )
    parts_streamed = folded(streamed)["candidates"][0]["content"]["parts"]
    assert parts_streamed[0]["thought"] is True and parts_streamed[-1] == {"text": ECHO}
    # Thinking on but not shown: no thought part, its tokens still counted.
    hidden = types.GenerateContentConfig(
        thinking_config=types.ThinkingConfig(include_thoughts=False, thinking_budget=1024)
    )
    plain = client.models.generate_content(model="sim-reasoning", contents=HELLO, config=hidden)
    plain_parts = (plain.candidates or [])[0].content.parts or []  # type: ignore[union-attr]
    assert not any(p.thought for p in plain_parts) and plain.text == ECHO
    assert plain.usage_metadata is not None and plain.usage_metadata.thoughts_token_count


def test_stop_sequences(client: genai.Client) -> None:
    config = types.GenerateContentConfig(stop_sequences=["SDK"])
    response = checked(
        client.models.generate_content(model="sim-echo", contents=HELLO, config=config)
    )
    assert response.text == "You said: Hello from the "
    assert (response.candidates or [])[0].finish_reason == types.FinishReason.STOP
    chunks = list(
        client.models.generate_content_stream(model="sim-echo", contents=HELLO, config=config)
    )
    assert folded(chunks)["candidates"][0]["content"]["parts"] == [
        {"text": "You said: Hello from the "}
    ]


def test_max_output_tokens_is_max_tokens(client: genai.Client) -> None:
    config = types.GenerateContentConfig(max_output_tokens=2)
    response = checked(
        client.models.generate_content(model="sim-echo", contents=HELLO, config=config)
    )
    assert (response.candidates or [])[0].finish_reason == types.FinishReason.MAX_TOKENS
    assert response.text and len(response.text) < len(ECHO)
    chunks = list(
        client.models.generate_content_stream(model="sim-echo", contents=HELLO, config=config)
    )
    assert folded(chunks)["candidates"][0]["finishReason"] == "MAX_TOKENS"


def test_count_tokens(client: genai.Client, bridge_server: BridgeServer) -> None:
    counted = client.models.count_tokens(model="sim-echo", contents=HELLO)
    validate_count(as_json(counted))
    assert counted.total_tokens and counted.total_tokens > 0
    more = client.models.count_tokens(model="sim-echo", contents=HELLO + " " + HELLO)
    assert (more.total_tokens or 0) > counted.total_tokens
    answer = client.models.generate_content(model="sim-echo", contents=HELLO)
    assert answer.usage_metadata is not None
    # Billed with Copilot's own system prompt, which counting the contents leaves out.
    billed = counted.total_tokens + BASE_PROMPT_TOKENS
    assert answer.usage_metadata.prompt_token_count == billed
    # The other body Google takes: the whole generateContent request.
    wrapped = {"generateContentRequest": {"contents": [{"parts": [{"text": HELLO}]}]}}
    reply = post(model_url(bridge_server, "sim-echo", "countTokens"), wrapped)
    assert reply.status_code == 200 and reply.json() == {"totalTokens": counted.total_tokens}


def test_models_list_and_get(client: genai.Client, bridge_server: BridgeServer) -> None:
    # The wire first (the SDK renames fields: supportedGenerationMethods -> supported_actions).
    google = {"x-goog-api-key": "k"}
    for path in ("v1beta", "v1"):  # google-genai 3.x asks v1 by default, Gemini CLI v1beta
        validate_models(get_json(f"{bridge_server.root_url}/{path}/models", google))
        validate_model(get_json(f"{bridge_server.root_url}/{path}/models/sim-echo", google))
    listed = list(client.models.list())
    names = [m.name for m in listed]
    assert "models/sim-echo" in names and "models/sim-reasoning" in names
    echo = client.models.get(model="sim-echo")
    assert echo.name == "models/sim-echo" and echo.display_name
    assert echo.input_token_limit == 128000
    assert echo.supported_actions == ["generateContent", "streamGenerateContent", "countTokens"]
    assert client.models.get(model="models/sim-echo").name == "models/sim-echo"
    pages = client.models.list(config={"page_size": 1})
    assert len(pages.page) == 1 and pages.config.get("page_token")
    assert [m.name for m in pages] == names  # the pager follows nextPageToken to the end


def test_async_client(bridge_server: BridgeServer) -> None:
    async def run() -> tuple[str | None, str]:
        client = make_client(bridge_server).aio
        try:
            response = await client.models.generate_content(model="sim-echo", contents=HELLO)
            stream = await client.models.generate_content_stream(model="sim-echo", contents=HELLO)
            streamed = "".join([c.text or "" async for c in stream])
        finally:
            await client.aclose()
        return response.text, streamed

    assert asyncio.run(run()) == (ECHO, ECHO)


def get_json(url: str, headers: dict[str, str]) -> Any:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return json.loads(response.read())


PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def test_an_image_part(client: genai.Client) -> None:
    image = types.Part.from_bytes(data=PNG_1X1, mime_type="image/png")
    response = client.models.generate_content(
        model="sim-echo", contents=[image, "What is in the picture?"]
    )
    assert response.text == "You said: What is in the picture?"
    counted = client.models.count_tokens(model="sim-echo", contents=["What is in the picture?"])
    assert response.usage_metadata is not None and counted.total_tokens
    assert (response.usage_metadata.prompt_token_count or 0) >= counted.total_tokens


def test_keepalive_blank_lines_do_not_break_the_stream(bridge_server_factory: StartServer) -> None:
    script = {"rules": [script_rule("slow", text("Thinking it over"), pause(2.5), text(" done."))]}
    server = bridge_server_factory("--keepalive-seconds", "0.5", script=script)
    body = {"contents": [{"parts": [{"text": "slow please"}]}]}
    _, sse = raw_stream(server, "sim-echo", body)
    assert sse.keepalives >= 2, "blank lines while the model was silent"
    assert check_stream(sse.chunks)["candidates"][0]["content"]["parts"] == [
        {"text": "Thinking it over done."}
    ]
    with make_client(server) as sdk:
        chunks = list(sdk.models.generate_content_stream(model="sim-echo", contents="slow please"))
        chat = sdk.chats.create(model="sim-echo")
        streamed = "".join(c.text or "" for c in chat.send_message_stream("slow again"))
        # The SDK took the turn as valid (a chunk without parts would have dropped it); it
        # keeps one model entry per chunk.
        history = chat.get_history(curated=True)
        assert history[0].role == "user" and {c.role for c in history[1:]} == {"model"}
        assert "".join(p.text or "" for c in history[1:] for p in c.parts or []) == (
            "Thinking it over done."
        )
    assert "".join(c.text or "" for c in chunks) == "Thinking it over done."
    assert streamed == "Thinking it over done."


def test_a_silent_end_keeps_the_chat_turn(bridge_server_factory: StartServer) -> None:
    """The model goes silent after its text, then ends: a keepalive tick sent the text, so the
    last chunk has nothing but its finishReason. It carries one empty text part: Google's SDKs
    take a chunk without parts as an invalid turn and drop it from a chat's history."""
    script = {"rules": [script_rule("quiet", text("All said."), pause(1.5))]}
    server = bridge_server_factory("--keepalive-seconds", "0.5", script=script)
    _, sse = raw_stream(server, "sim-echo", {"contents": [{"parts": [{"text": "quiet"}]}]})
    texts = [p["text"] for c in sse.chunks[:-1] for p in c["candidates"][0]["content"]["parts"]]
    assert "".join(texts) == "All said." and sse.keepalives >= 1
    last = sse.chunks[-1]["candidates"][0]
    assert last["content"]["parts"] == [{"text": ""}] and last["finishReason"] == "STOP"
    with make_client(server) as sdk:
        chat = sdk.chats.create(model="sim-echo")
        assert "".join(c.text or "" for c in chat.send_message_stream("quiet")) == "All said."
        history = chat.get_history(curated=True)
    assert [c.role for c in history][:2] == ["user", "model"], "the turn was kept"
