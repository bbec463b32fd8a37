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
from fixture_files import CLIENTS, FIXTURES, client_requests

# The headless editor's models, one per Copilot family whose rules differ.
FAMILY_MODELS = ("sim-echo", "sim-reasoning", "sim-gemini")  # GPT-4, Claude, Gemini
_HOP_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


def _captures() -> list[tuple[str, dict[str, Any]]]:
    """(name, {method, path, headers, body}) of every captured request."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path in client_requests():
        meta = json.loads(path.with_name(path.stem + ".meta.json").read_text(encoding="utf-8"))
        body = json.loads(path.read_text(encoding="utf-8"))
        if body.get("previous_response_id") is not None:
            continue  # the bridge refuses these itself (no stored responses), before any model
        found.append((f"clients/{path.stem}", {**meta, "body": body}))
    for folder in ("claude_code", "gemini_cli", "aider"):
        for path in sorted((FIXTURES / folder).glob("*.json")):
            if path.name != "runs.json":
                found.append((f"{folder}/{path.stem}", json.loads(path.read_text("utf-8"))))
    return found


CAPTURES = _captures()


def test_every_client_is_replayed() -> None:
    names = [name for name, _ in CAPTURES]
    for prefix in ("clients/codex-", "clients/py-", "clients/node-", "clients/agents-"):
        assert any(n.startswith(prefix) for n in names), prefix
    for folder in ("claude_code/", "gemini_cli/", "aider/"):
        assert any(n.startswith(folder) for n in names), folder
    assert CLIENTS.is_dir()


def _for_model(capture: dict[str, Any], model: str) -> tuple[str, dict[str, Any]]:
    """The capture's path and body, asking for `model`."""
    path: str = capture["path"]
    body = dict(capture["body"])
    if path.startswith("/v1beta/models/"):
        rest = path.removeprefix("/v1beta/models/")
        path = f"/v1beta/models/{model}:{rest.split(':', 1)[1]}"
    else:
        body["model"] = model
    return path, body


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
    path, body = _for_model(capture, model)
    headers = {k: str(v) for k, v in capture["headers"].items() if k.lower() not in _HOP_HEADERS}
    async with http.post(f"{bridge_server.root_url}{path}", json=body, headers=headers) as reply:
        text = await reply.text()
        assert reply.status == 200, f"{name} to {model}: {reply.status} {text[:2000]}"
        streamed = "text/event-stream" in reply.headers.get("Content-Type", "")
    events = _sse_data(text) if streamed else [json.loads(text)]
    _assert_normal_answer(path, events, f"{name} to {model}")


def _sse_data(text: str) -> list[Any]:
    found: list[Any] = []
    for line in text.splitlines():
        if line.startswith("data:"):
            data = line.removeprefix("data:").strip()
            if data and data != "[DONE]":
                found.append(json.loads(data))
    return found


def _assert_normal_answer(path: str, events: list[Any], label: str) -> None:
    """The dialect's own sign of a whole answer: no error, a normal finish, some output."""
    dump = json.dumps(events)[-3000:]
    assert events, label
    failed = [e for e in events if e.get("type") in ("error", "response.failed") or e.get("error")]
    assert not failed, f"{label}: {dump}"
    last = events[-1]
    if path.startswith("/v1/responses"):
        response = last.get("response", last)
        assert response.get("status") == "completed", f"{label}: {dump}"
        assert response.get("output"), f"{label}: {dump}"
        return
    if path.startswith("/v1/messages"):
        deltas = [e["delta"] for e in events if e.get("type") == "message_delta"]
        stops = [d.get("stop_reason") for d in deltas] or [last.get("stop_reason")]
        assert stops[-1] in ("end_turn", "tool_use"), f"{label}: {dump}"
        return
    key = "choices" if path.startswith("/v1/chat/") else "candidates"
    field = "finish_reason" if key == "choices" else "finishReason"
    reasons = [c[field] for e in events for c in e.get(key, []) if c.get(field)]
    normal = {"stop", "tool_calls"} if key == "choices" else {"STOP"}
    assert reasons and reasons[-1] in normal, f"{label}: {dump}"
