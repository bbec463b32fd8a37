"""The requests real clients sent (tests/fixtures: Codex, the OpenAI SDKs and the Agents SDK on
Responses, Claude Code on Messages, Gemini CLI on Gemini, Aider on Chat Completions), readied
for a replay to a model of the test's choosing, and the check that an answer to one is whole.
Used by the replay through the headless editor (test_copilot_replay.py) and through the real
Copilot provider (test_e2e_copilot_replay.py).
"""

from __future__ import annotations

import json
from typing import Any

from fixture_files import FIXTURES, client_requests

HOP_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


def captures() -> list[tuple[str, dict[str, Any]]]:
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


def for_model(capture: dict[str, Any], model: str) -> tuple[str, dict[str, Any]]:
    """The capture's path and body, asking for `model`."""
    path: str = capture["path"]
    body = dict(capture["body"])
    if path.startswith("/v1beta/models/"):
        rest = path.removeprefix("/v1beta/models/")
        path = f"/v1beta/models/{model}:{rest.split(':', 1)[1]}"
    else:
        body["model"] = model
    return path, body


def sse_data(text: str) -> list[Any]:
    found: list[Any] = []
    for line in text.splitlines():
        if line.startswith("data:"):
            data = line.removeprefix("data:").strip()
            if data and data != "[DONE]":
                found.append(json.loads(data))
    return found


def assert_normal_answer(path: str, events: list[Any], label: str) -> None:
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
