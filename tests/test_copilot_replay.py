"""Every request a real client sent (tests/fixtures: Codex, the OpenAI SDKs and the Agents SDK
on Responses, Claude Code on Messages, Gemini CLI on Gemini, Aider on Chat Completions),
replayed through a real `maestro-bridge serve` in its own dialect to a model of each Copilot
family the headless editor simulates, with Copilot's rules on (the default): each must come
back 200 with a normal answer. A request the bridge shapes in a way Copilot refuses fails
here with Copilot's message, as it would fail for a user.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer
from fixture_files import CLIENTS
from replay_captures import HOP_HEADERS, assert_normal_answer, captures, for_model, sse_data

# The headless editor's models, one per Copilot family whose rules differ.
FAMILY_MODELS = ("sim-echo", "sim-reasoning", "sim-gemini")  # GPT-4, Claude, Gemini


CAPTURES = captures()


def test_every_client_is_replayed() -> None:
    names = [name for name, _ in CAPTURES]
    for prefix in ("clients/codex-", "clients/py-", "clients/node-", "clients/agents-"):
        assert any(n.startswith(prefix) for n in names), prefix
    for folder in ("claude_code/", "gemini_cli/", "aider/"):
        assert any(n.startswith(folder) for n in names), folder
    assert CLIENTS.is_dir()


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        yield session


@pytest.mark.parametrize("model", FAMILY_MODELS)
@pytest.mark.parametrize(("name", "capture"), CAPTURES, ids=[name for name, _ in CAPTURES])
async def test_copilot_accepts_the_captured_request(
    http: aiohttp.ClientSession,
    bridge_server: BridgeServer,
    name: str,
    capture: dict[str, Any],
    model: str,
) -> None:
    path, body = for_model(capture, model)
    headers = {k: str(v) for k, v in capture["headers"].items() if k.lower() not in HOP_HEADERS}
    async with http.post(f"{bridge_server.root_url}{path}", json=body, headers=headers) as reply:
        text = await reply.text()
        assert reply.status == 200, f"{name} to {model}: {reply.status} {text[:2000]}"
        streamed = "text/event-stream" in reply.headers.get("Content-Type", "")
    events = sse_data(text) if streamed else [json.loads(text)]
    assert_normal_answer(path, events, f"{name} to {model}")
