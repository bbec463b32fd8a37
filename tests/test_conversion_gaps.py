"""Issue 27, conversion gaps, against a real `maestro-bridge serve`:

- a custom (freeform) tool's call that the model wrote as `{"source": "..."}` (models trained
  on Codex's code mode do) reaches the client as the raw text, as `{"input": "..."}` does,
  in JSON and in the stream; before, the client got the JSON object as the tool's input;
- an `agent_message` item without `content` (a Codex multi-agent notification with no text)
  is accepted and reaches the model as who wrote to whom; before, a 400 on `input[0].content`.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from conftest import REPO_ROOT, StartServer
from spec_validation import parse_sse, validate_stream

TIMEOUT = aiohttp.ClientTimeout(total=60)
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"
APPLY_PATCH = {
    "type": "custom",
    "name": "apply_patch",
    "description": "Apply a patch.",
    "format": {"type": "grammar", "syntax": "lark", "definition": 'start: "*** Begin Patch"'},
}
SCRIPT = {
    "rules": [
        {
            "match": "as source",
            "reply": [{"type": "tool_call", "name": "apply_patch", "arguments": {"source": PATCH}}],
        },
        {
            "match": "as input",
            "reply": [{"type": "tool_call", "name": "apply_patch", "arguments": {"input": PATCH}}],
        },
    ]
}


def custom_calls(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in output if item["type"] == "custom_tool_call"]


async def test_a_custom_tool_call_written_as_source_reaches_the_client_as_raw_text(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory(script=SCRIPT)
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        for how in ("as source", "as input"):
            body = {"model": "sim-echo", "input": f"Write the file {how}.", "tools": [APPLY_PATCH]}
            async with http.post(f"{server.base_url}/responses", json=body) as reply:
                answer = await reply.json()
            assert reply.status == 200, answer
            [call] = custom_calls(answer["output"])
            assert (call["name"], call["input"]) == ("apply_patch", PATCH), (how, call)

            async with http.post(
                f"{server.base_url}/responses", json={**body, "stream": True}
            ) as reply:
                events = parse_sse(await reply.text())
            validate_stream(events)
            done = [e for e in events if e["type"] == "response.custom_tool_call_input.done"]
            assert [e["input"] for e in done] == [PATCH], (how, done)
            deltas = "".join(
                e["delta"] for e in events if e["type"] == "response.custom_tool_call_input.delta"
            )
            assert deltas == PATCH
            [call] = custom_calls(events[-1]["response"]["output"])
            assert call["input"] == PATCH


async def test_an_agent_message_without_content_says_who_wrote_to_whom(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory()
    notification = {"type": "agent_message", "author": "/root/helper", "recipient": "/root"}
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        body = {"model": "sim-echo", "input": [{"role": "user", "content": "Wait."}, notification]}
        async with http.post(f"{server.base_url}/responses", json=body) as reply:
            answer = await reply.json()
        assert reply.status == 200, answer
        [message] = answer["output"]
        said = message["content"][0]["text"]
        assert said == "You said: [Message from agent /root/helper to /root, with no text]", said

        # The token count takes it too, and counts it.
        only = {"model": "sim-echo", "input": [notification]}
        async with http.post(f"{server.base_url}/responses/input_tokens", json=only) as reply:
            counted = await reply.json()
        assert reply.status == 200, counted
        assert counted["input_tokens"] > 0, json.dumps(counted)


async def test_parts_the_bridge_cannot_pass_become_the_note_the_docs_document(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory()
    audio = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    encrypted = {"type": "encrypted_content", "encrypted_content": "Compute 2+2."}
    note = "[content of type 'input_audio' not included]"
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        # The simulated model echoes the last part of the last message.
        for part, reaches_the_model in ((audio, note), (encrypted, "Compute 2+2.")):
            parts = [{"type": "input_text", "text": "Here:"}, part]
            body = {"model": "sim-echo", "input": [{"role": "user", "content": parts}]}
            async with http.post(f"{server.base_url}/responses", json=body) as reply:
                answer = await reply.json()
            assert reply.status == 200, answer
            said = answer["output"][0]["content"][0]["text"]
            assert said == f"You said: {reaches_the_model}", said
    # What the model got is what the Responses mapping page says, with the reasons for it.
    page = (REPO_ROOT / "docs/mapping/responses.md").read_text(encoding="utf-8")
    mapping = page.split("## How requests are mapped", 1)[1].split("\n## ", 1)[0]
    flat = " ".join(mapping.split())
    assert "**Parts the editor cannot take, and `encrypted_content` parts.**" in flat
    assert f"`{note}`" in flat
    assert "is passed to the model as the text it holds" in flat
    assert "`[Message from agent AUTHOR to RECIPIENT, with no text]`" in flat
