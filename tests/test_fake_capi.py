"""Tests of tests/fake_capi, the FAKE of GitHub Copilot's cloud (CAPI) that Copilot Chat talks
to in the tests (the real cloud cannot be reached here): its shapes, numbers and refusals."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from aiohttp.test_utils import TestClient
from anthropic_validation import validate_event
from fake_capi import FakeCapi
from pytest_aiohttp import AiohttpClient

Client = TestClient[Any, Any]
LONG = " ".join(f"word{i}" for i in range(3000))  # ~6,000 tokens of shared prefix


async def _client(aiohttp_client: AiohttpClient) -> tuple[FakeCapi, Client]:
    capi = FakeCapi()
    return capi, await aiohttp_client(capi.app())


def _frames(text: str) -> list[tuple[str | None, Any]]:
    frames: list[tuple[str | None, Any]] = []
    for block in text.strip().split("\n\n"):
        event = None
        for line in block.split("\n"):
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
                frames.append((event, data if data == "[DONE]" else json.loads(data)))
    return frames


def _chat(text: str, **extra: Any) -> dict[str, Any]:
    messages = [
        {"role": "system", "content": "You are Copilot. [capi 400]"},
        {"role": "user", "content": text},
    ]
    return {"model": "gpt-4.1", "stream": True, "messages": messages, **extra}


def _claude(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4.5",
        "stream": True,
        "max_tokens": 1000,
        "messages": messages,
        **extra,
    }


TOOL_CHAT = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
}


async def test_models_lists_each_family_with_its_endpoint(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    data = (await (await client.get("/models")).json())["data"]
    by_id = {m["id"]: m for m in data}
    assert by_id["gpt-4.1"]["supported_endpoints"] == ["/chat/completions"]
    assert by_id["gpt-4.1"]["is_chat_default"] and by_id["gpt-4.1"]["billing"]["multiplier"] == 0
    assert "/responses" in by_id["gpt-5-mini"]["supported_endpoints"]
    assert "/v1/messages" in by_id["claude-sonnet-4.5"]["supported_endpoints"]
    assert by_id["claude-sonnet-4.5"]["capabilities"]["supports"]["tool_search"] is True
    assert by_id["gemini-2.5-pro"]["supported_endpoints"] == ["/chat/completions"]
    assert by_id["text-embedding-3-small"]["capabilities"]["type"] == "embeddings"
    for model in data:
        if model["capabilities"]["type"] == "chat":
            assert model["capabilities"]["limits"]["max_prompt_tokens"] >= 64000
            assert model["capabilities"]["tokenizer"] == "o200k_base"


async def test_chat_streams_text_and_usage_ignoring_the_system_prompt(
    aiohttp_client: AiohttpClient,
) -> None:
    capi, client = await _client(aiohttp_client)
    response = await client.post(
        "/chat/completions", json=_chat("hello there"), headers={"X-Initiator": "user"}
    )
    assert response.status == 200 and response.headers["Content-Type"] == "text/event-stream"
    frames = _frames(await response.text())
    assert frames[-1] == (None, "[DONE]")
    chunks = [data for _, data in frames[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert text == "You said: hello there"
    assert len([c for c in chunks if c["choices"][0]["delta"].get("content")]) > 1
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "stop"
    usage = last["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert usage["prompt_tokens_details"] == {"cached_tokens": 0}
    assert capi.requests_to("/chat/completions")[0].header("x-initiator") == "user"
    assert capi.last_body()["messages"][1]["content"] == "hello there"


async def test_chat_tool_call_round_trip(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    frames = _frames(
        await (
            await client.post("/chat/completions", json=_chat("read it", tools=[TOOL_CHAT]))
        ).text()
    )
    deltas = [d["choices"][0]["delta"] for _, d in frames[:-1] if d["choices"]]
    calls = [c for d in deltas for c in d.get("tool_calls", [])]
    assert (
        calls[0]["id"]
        and calls[0]["function"]["name"] == "read_file"
        and calls[0]["type"] == "function"
    )
    arguments = "".join(c["function"].get("arguments", "") for c in calls)
    assert json.loads(arguments) == {"path": "placeholder"}
    assert frames[-2][1]["choices"][0]["finish_reason"] == "tool_calls"
    call = {
        "id": calls[0]["id"],
        "type": "function",
        "function": {"name": "read_file", "arguments": arguments},
    }
    follow = _chat("read it", tools=[TOOL_CHAT])
    follow["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": calls[0]["id"], "content": "0123456789"},
    ]
    frames = _frames(await (await client.post("/chat/completions", json=follow)).text())
    text = "".join(
        d["choices"][0]["delta"].get("content") or "" for _, d in frames[:-1] if d["choices"]
    )
    assert text == "The tool read_file returned 10 characters."


async def test_unpaired_tool_results_are_refused_per_family(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    body = _chat("x")
    body["messages"].append({"role": "tool", "tool_call_id": "call_9", "content": "r"})
    response = await client.post("/chat/completions", json=body)
    assert response.status == 400
    assert (
        "No tool call found for function call output" in (await response.json())["error"]["message"]
    )
    orphan = [
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "r"}],
        }
    ]
    response = await client.post("/v1/messages", json=_claude(orphan))
    assert response.status == 400
    assert "unexpected `tool_use_id` found in `tool_result` blocks" in await response.text()


async def test_refused_schemas_get_a_blank_400(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    bad = {
        "type": "function",
        "function": {
            "name": "t",
            "description": "d",
            "parameters": {
                "type": "object",
                "properties": {"q": {"type": "string", "pattern": "a+"}},
            },
        },
    }
    response = await client.post("/chat/completions", json=_chat("x", tools=[bad]))
    assert response.status == 400 and await response.read() == b""
    gemini = _chat("x", model="gemini-2.5-pro", tools=[bad])
    assert (
        await client.post("/chat/completions", json=gemini)
    ).status == 200  # pattern: GPT-4 only
    no_items = {
        "type": "function",
        "function": {
            "name": "t",
            "description": "d",
            "parameters": {"type": "object", "properties": {"l": {"type": "array"}}},
        },
    }
    assert (
        await client.post(
            "/chat/completions", json=_chat("x", model="gemini-2.5-pro", tools=[no_items])
        )
    ).status == 400


async def test_responses_stream_with_reasoning_and_function_call(
    aiohttp_client: AiohttpClient,
) -> None:
    _, client = await _client(aiohttp_client)
    ls = {"type": "object", "properties": {}}
    body = {
        "model": "gpt-5-mini",
        "stream": True,
        "store": False,
        "instructions": "Copilot rules",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "list files"}]}],
        "tools": [
            {
                "type": "function",
                "name": "ls",
                "description": "l",
                "parameters": ls,
                "strict": False,
            }
        ],
        "reasoning": {"effort": "medium", "summary": "detailed"},
        "include": ["reasoning.encrypted_content"],
    }
    frames = _frames(await (await client.post("/responses", json=body)).text())
    assert frames[-1] == (None, "[DONE]")
    events = [data for _, data in frames[:-1]]
    assert all(name == data["type"] for name, data in frames[:-1])
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    kinds = [e["type"] for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert "response.reasoning_summary_text.delta" in kinds
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"]
    assert [i["type"] for i in added] == ["reasoning", "message", "function_call"]
    assert added[2]["name"] == "ls" and added[2]["call_id"]
    args = "".join(
        e["delta"] for e in events if e["type"] == "response.function_call_arguments.delta"
    )
    assert json.loads(args) == {}
    final = events[-1]
    assert final["type"] == "response.completed" and final["response"]["id"].startswith("resp_")
    usage = final["response"]["usage"]
    assert usage["output_tokens_details"]["reasoning_tokens"] > 0
    assert usage["input_tokens_details"] == {"cached_tokens": 0}
    assert [o["type"] for o in final["response"]["output"]] == [
        "reasoning",
        "message",
        "function_call",
    ]


async def test_anthropic_stream_is_valid_and_caches_at_breakpoints(
    aiohttp_client: AiohttpClient,
) -> None:
    _, client = await _client(aiohttp_client)
    system = [{"type": "text", "text": LONG, "cache_control": {"type": "ephemeral"}}]
    body = _claude(
        [{"role": "user", "content": "hi"}],
        system=system,
        thinking={"type": "enabled", "budget_tokens": 2048},
    )
    frames = _frames(await (await client.post("/v1/messages", json=body)).text())
    for name, data in frames:
        assert name is not None
        validate_event(name, {k: v for k, v in data.items() if k != "copilot_usage"})
    assert frames[-2][1]["copilot_usage"]["total_nano_aiu"] > 0  # CAPI's, beside Anthropic's
    kinds = [data["type"] for _, data in frames]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    deltas = [data["delta"]["type"] for _, data in frames if data["type"] == "content_block_delta"]
    assert "thinking_delta" in deltas and "signature_delta" in deltas and "text_delta" in deltas
    first = frames[0][1]["message"]["usage"]
    assert first["cache_creation_input_tokens"] > 1024 and first["cache_read_input_tokens"] == 0
    body["messages"] = [{"role": "user", "content": "again"}]
    frames = _frames(await (await client.post("/v1/messages", json=body)).text())
    second = frames[-2][1]["usage"]
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert second["cache_creation_input_tokens"] == 0 and second["input_tokens"] > 0


async def test_openai_caching_in_128_token_steps(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)

    async def usage(text: str) -> dict[str, Any]:
        frames = _frames(await (await client.post("/chat/completions", json=_chat(text))).text())
        result: dict[str, Any] = frames[-2][1]["usage"]
        return result

    await usage(LONG + " first")
    second = await usage(LONG + " second")
    cached = second["prompt_tokens_details"]["cached_tokens"]
    assert cached >= 1024 and (cached - 1024) % 128 == 0
    assert second["prompt_tokens"] - 128 < cached <= second["prompt_tokens"]
    await usage("short")
    assert (await usage("short"))["prompt_tokens_details"]["cached_tokens"] == 0


async def test_error_markers(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    response = await client.post("/chat/completions", json=_chat("[capi 400]"))
    assert response.status == 400
    assert (await response.json())["error"]["code"] == "invalid_request_body"
    response = await client.post("/chat/completions", json=_chat("[capi 400 blank]"))
    assert response.status == 400 and await response.read() == b""
    response = await client.post("/chat/completions", json=_chat("[capi 402]"))
    assert response.status == 402 and (await response.json())["error"]["code"] == "quota_exceeded"
    response = await client.post("/chat/completions", json=_chat("[capi 429 7]"))
    assert response.status == 429 and response.headers["retry-after"] == "7"
    response = await client.post("/chat/completions", json=_chat("[capi context]"))
    error = (await response.json())["error"]
    assert response.status == 400 and error["code"] == "model_max_prompt_tokens_exceeded"
    assert error["message"].endswith("exceeds the limit of 128000")
    huge = _chat(" ".join(["word"] * 130000))
    response = await client.post("/chat/completions", json=huge)
    assert (await response.json())["error"]["code"] == "model_max_prompt_tokens_exceeded"


async def test_filter_length_and_midstream(aiohttp_client: AiohttpClient) -> None:
    _, client = await _client(aiohttp_client)
    frames = _frames(
        await (await client.post("/chat/completions", json=_chat("[capi filter] hi"))).text()
    )
    assert frames[-2][1]["choices"][0]["finish_reason"] == "content_filter"
    frames = _frames(
        await (
            await client.post("/chat/completions", json=_chat("[capi length 3] one two three four"))
        ).text()
    )
    assert frames[-2][1]["choices"][0]["finish_reason"] == "length"
    assert frames[-2][1]["usage"]["completion_tokens"] == 3
    frames = _frames(
        await (
            await client.post("/chat/completions", json=_chat("one two three four", max_tokens=2))
        ).text()
    )
    assert frames[-2][1]["choices"][0]["finish_reason"] == "length"
    body = {
        "model": "gpt-5.1",
        "stream": True,
        "input": "[capi length 2] one two",
        "max_output_tokens": 100,
    }
    final = _frames(await (await client.post("/responses", json=body)).text())[-2][1]
    assert final["type"] == "response.incomplete"
    assert final["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    frames = _frames(
        await (
            await client.post(
                "/v1/messages", json=_claude([{"role": "user", "content": "[capi length 2] a b c"}])
            )
        ).text()
    )
    assert frames[-2][1]["delta"]["stop_reason"] == "max_tokens"
    frames = _frames(
        await (
            await client.post(
                "/v1/messages",
                json=_claude([{"role": "user", "content": "[capi midstream] a b c d e f"}]),
            )
        ).text()
    )
    assert frames[-1][1]["type"] == "error" and any(
        d.get("type") == "content_block_delta" for _, d in frames
    )
    frames = _frames(
        await (
            await client.post("/chat/completions", json=_chat("[capi midstream] a b c d e f"))
        ).text()
    )
    assert "error" in frames[-1][1] and (None, "[DONE]") not in frames


def test_threaded_server_records_and_clears() -> None:
    with FakeCapi() as capi:
        request = urllib.request.Request(
            capi.url + "/chat/completions",
            data=json.dumps({**_chat("hi"), "stream": False}).encode(),
            headers={
                "Content-Type": "application/json",
                "Authorization": "Bearer t0k",
                "Copilot-Integration-Id": "vscode-chat",
            },
        )
        with urllib.request.urlopen(request) as response:
            answer = json.load(response)
        assert answer["choices"][0]["message"]["content"] == "You said: hi"
        recorded = capi.requests_to("/chat/completions")[0]
        assert recorded.method == "POST" and recorded.header("authorization") == "Bearer t0k"
        assert recorded.header("copilot-integration-id") == "vscode-chat"
        capi.clear()
        assert capi.requests == []


async def test_responses_takes_copilots_tool_search_items(aiohttp_client: AiohttpClient) -> None:
    """Copilot sends a call of a client's `tool_search` as `tool_search_call` and its result as
    `tool_search_output` with the tools it loaded; the model reads the loaded tools' names."""
    _, client = await _client(aiohttp_client)
    call = {
        "type": "tool_search_call",
        "execution": "client",
        "call_id": "c1",
        "status": "completed",
        "arguments": {"query": "probe"},
    }
    output = {
        "type": "tool_search_output",
        "execution": "client",
        "call_id": "c1",
        "status": "completed",
        "tools": [{"type": "function", "name": "probe_7"}],
    }
    body = {
        "model": "gpt-5-mini",
        "stream": False,
        "input": [{"role": "user", "content": "find"}, call, output],
    }
    reply = await client.post("/responses", json=body)
    assert reply.status == 200, await reply.text()
    answer = await reply.json()
    texts = [
        c["text"] for item in answer["output"] if item["type"] == "message" for c in item["content"]
    ]
    # The simulated model reports on the tool result it was given: its text's length.
    loaded = "Tools loaded (they can be called now): probe_7"
    assert texts == [f"The tool tool_search returned {len(loaded)} characters."], answer
