"""The fallback model through a real `maestro-bridge serve --fallback-model sim-gemini`: when
the requested model fails before its first part with a rate limit, a spent quota or a server
error (as GitHub Copilot throws them: tests/test_e2e_copilot_errors.py), the fallback is asked
once, with the request built again for its family, in every dialect, streamed and not, and on
the WebSocket; the ledger has a row for each attempt. A 400 is not retried elsewhere, nor is a
failure of the fallback model itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from budget_ledger import rows, wait_for
from conftest import BridgeServer, running_bridge_server
from copilot_errors_http import DIALECTS, ask
from plain_http import post
from test_e2e_copilot_errors import FAILURES

FALLBACK = "sim-gemini"
# The failures another model may not have, and what the client would get without a fallback.
FALLS_BACK = {"RATE": (429, "rate_limit_exceeded"), "QUOTA": (429, "insufficient_quota")}
FALLS_BACK |= {"BLOCKED": (429, "rate_limit_exceeded"), "DOWN": (502, "editor_error")}
KEYS = [
    f"{word}_{dialect}_{'stream' if stream else 'whole'}"
    for word in [*FALLS_BACK, "BADTOOL"]
    for dialect in [*DIALECTS, "ws"]
    for stream in (False, True)
]


def _fails(word: str) -> dict[str, Any]:
    name, code, message = FAILURES[word]
    return {"type": "error", "code": code, "name": name, "message": message}


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fallback") / "usage.sqlite3"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, ledger: Path) -> Iterator[BridgeServer]:
    # Each prompt fails once (BADTOOL always); what asks again gets its request echoed.
    rules: list[dict[str, Any]] = [
        {"match": f"^FALL_{key}$", "reply": [_fails(key.split("_")[0])]}
        | ({} if key.startswith("BADTOOL") else {"times": 1})
        for key in KEYS
    ]
    rules += [
        {"match": "^SELF_RATE$", "reply": [_fails("RATE")]},
        {"match": "^FALL_RATE_chat_tools$", "reply": [_fails("RATE")], "times": 1},
        {"match": "^FALL_", "reply": [{"type": "request"}]},
    ]
    path = tmp_path_factory.mktemp("fallback-script") / "script.json"
    path.write_text(json.dumps({"rules": rules}), encoding="utf-8")
    args = ("--script", str(path), "--usage-db", str(ledger), "--fallback-model", FALLBACK)
    with running_bridge_server(*args) as running:
        yield running


def _new_rows(ledger: Path, before: int, count: int) -> list[dict[str, Any]]:
    wait_for(lambda: len(rows(ledger)) >= before + count)
    found = sorted(rows(ledger)[before:], key=lambda row: row["started"])
    assert len(found) == count, found
    return found  # in the order asked (a failed one is written later: its tokens estimated)


@pytest.mark.parametrize("word", list(FALLS_BACK))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_fallback_answers_after_a_rate_limit_quota_or_server_error(
    server: BridgeServer, ledger: Path, dialect: str, word: str
) -> None:
    status, code = FALLS_BACK[word]
    for stream in (False, True):
        before = len(rows(ledger))
        key = f"FALL_{word}_{dialect}_{'stream' if stream else 'whole'}"
        outcome = ask(server, dialect, key, stream)
        assert outcome.status == 200, outcome
        asked = json.loads(outcome.text)  # the fallback's request, as the editor got it
        assert asked["model"] == FALLBACK
        if dialect != "gemini":  # the answer names the model the client asked for
            assert outcome.raw["model"] == "sim-echo", outcome.raw
        first, second = _new_rows(ledger, before, 2)
        assert (first["model"], first["status"], first["error"]) == ("sim-echo", status, code)
        assert (second["model"], second["status"], second["error"]) == (FALLBACK, 200, None)
        assert second["requested_model"] == first["requested_model"] == "sim-echo"
        # The refused attempt read nothing: no tokens for it, none against a budget.
        assert (first["input_tokens"], first["output_tokens"]) == (0, 0)
        assert second["input_tokens"] > 0 and second["output_tokens"] > 0
        assert f"asking the fallback model {FALLBACK} once" in server.stderr_text()


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_400_is_not_asked_of_the_fallback(
    server: BridgeServer, ledger: Path, dialect: str
) -> None:
    for stream in (False, True):
        before = len(rows(ledger))
        key = f"FALL_BADTOOL_{dialect}_{'stream' if stream else 'whole'}"
        outcome = ask(server, dialect, key, stream)
        assert outcome.status == 400, outcome
        (only,) = _new_rows(ledger, before, 1)
        assert (only["model"], only["status"]) == ("sim-echo", 400)


def test_the_fallback_model_failing_itself_is_not_asked_again(
    server: BridgeServer, ledger: Path
) -> None:
    before = len(rows(ledger))
    body = {"model": FALLBACK, "messages": [{"role": "user", "content": "SELF_RATE"}]}
    reply = post(f"{server.base_url}/chat/completions", body)
    assert reply.status_code == 429 and reply.headers["retry-after"] == "42", reply.text
    (only,) = _new_rows(ledger, before, 1)
    assert only["model"] == FALLBACK


def test_the_fallbacks_request_is_built_for_its_family(server: BridgeServer, ledger: Path) -> None:
    """Not the same request under another id: Gemini's schemas keep `format`, which the
    GPT family's lose (bridge/core/copilot/schemas.py)."""
    before = len(rows(ledger))
    tool = {
        "type": "function",
        "function": {
            "name": "fetch.page",
            "parameters": {
                "type": "object",
                "properties": {"url": {"type": "string", "format": "uri"}},
            },
        },
    }
    for prompt, model in (("FALL_RATE_chat_tools", FALLBACK), ("FALL_plain", "sim-echo")):
        body = {"model": "sim-echo", "messages": [{"role": "user", "content": prompt}]}
        reply = post(f"{server.base_url}/chat/completions", {**body, "tools": [tool]})
        assert reply.status_code == 200, reply.text
        asked = json.loads(reply.json()["choices"][0]["message"]["content"])
        assert asked["model"] == model
        (editor_tool,) = asked["tools"]
        url = editor_tool["inputSchema"]["properties"]["url"]
        assert ("format" in url) == (model == FALLBACK), asked
    # Its rows written (the failed ask, the fallback's, the plain one) before the next test
    # counts the ledger's: a row is written after its answer.
    _new_rows(ledger, before, 3)


@pytest.mark.parametrize("stream", [False, True])
async def test_the_websocket_answers_from_the_fallback(
    server: BridgeServer, ledger: Path, stream: bool
) -> None:
    before = len(rows(ledger))
    url = server.base_url.replace("http://", "ws://") + "/responses"
    key = f"FALL_RATE_ws_{'stream' if stream else 'whole'}"
    frame = {"type": "response.create", "model": "sim-echo", "input": key}
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        await ws.send_json(frame)
        while True:
            event = await ws.receive_json(timeout=30)
            if event["type"] in ("response.completed", "response.failed", "error"):
                break
    assert event["type"] == "response.completed", event
    response = event["response"]
    assert response["model"] == "sim-echo"
    text = response["output"][-1]["content"][0]["text"]
    assert json.loads(text)["model"] == FALLBACK
    first, second = _new_rows(ledger, before, 2)
    assert (first["model"], first["status"], second["model"]) == ("sim-echo", 429, FALLBACK)
