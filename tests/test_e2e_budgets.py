"""Token budgets through a real `maestro-bridge serve` (issue 29, caps): a request over a
budget gets its dialect's 429 with `budget_exceeded`, the budget, its use and its reset time
and `Retry-After`, and never reaches the editor; per-client and per-model budgets count only
theirs; two bridges sharing a ledger count each other; a running stream is never cut; 80 % of a
budget is one warning in the log. Use already spent is written to the ledger file as another
bridge would have (tests/budget_ledger.py)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from budget_ledger import (
    next_local_midnight,
    next_month_start,
    rows,
    seconds_until,
    seed,
    wait_for,
)
from conftest import BridgeServer, StartServer, running_bridge_server
from copilot_errors_http import DIALECTS, ask
from plain_http import Reply, post


@pytest.fixture
def start(bridge_server_factory: StartServer) -> StartServer:
    return bridge_server_factory


CODE = {"responses": "budget_exceeded", "chat": "budget_exceeded"}
CODE |= {"anthropic": "rate_limit_error", "gemini": "RESOURCE_EXHAUSTED"}


def usage(server: BridgeServer) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.base_url}/usage", timeout=30) as reply:
        body: dict[str, Any] = json.loads(reply.read())
    return body


def chat(server: BridgeServer, model: str, agent: str | None = None) -> Reply:
    headers = {"User-Agent": agent} if agent else {}
    body = {"model": model, "messages": [{"role": "user", "content": "Say hi"}]}
    return post(f"{server.base_url}/chat/completions", body, headers=headers)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_spent_daily_budget_is_the_dialects_429_and_never_reaches_the_editor(
    tmp_path: Path, start: StartServer, dialect: str
) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 1000)
    server = start("--usage-db", str(db), "--daily-token-budget", "1000")
    for stream in (False, True):
        outcome = ask(server, dialect, "Say hi", stream)
        assert outcome.status == 429, outcome
        assert outcome.error_code == CODE[dialect], outcome
        reset = next_local_midnight()
        assert abs(int(outcome.headers["retry-after"]) - seconds_until(reset)) <= 5
        message = outcome.error_message
        assert "daily token budget" in message and "1000 of 1000" in message, message
        assert reset.isoformat(timespec="seconds") in message, message
        if dialect == "gemini":
            retry = [d for d in outcome.raw["error"]["details"] if "RetryInfo" in d["@type"]]
            assert retry[0]["retryDelay"] == f"{outcome.headers['retry-after']}s"
    assert len(rows(db)) == 1  # the seeded row alone: the editor was never asked
    budgets = usage(server)["budgets"]
    assert budgets == [
        {
            "scope": "all",
            "name": None,
            "period": "day",
            "limit": 1000,
            "used": 1000,
            "resets_at": next_local_midnight().isoformat(timespec="seconds"),
            "state": "exceeded",
        }
    ]


def test_a_monthly_budget_resets_on_the_first_of_next_month(
    tmp_path: Path, start: StartServer
) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 500)
    server = start("--usage-db", str(db), "--monthly-token-budget", "400")
    reply = chat(server, "sim-echo")
    assert reply.status_code == 429, reply.text
    error = reply.json()["error"]
    assert error["code"] == "budget_exceeded" and error["type"] == "rate_limit_error"
    assert "monthly token budget" in error["message"] and "500 of 400" in error["message"]
    reset = next_month_start()
    assert abs(int(reply.headers["retry-after"]) - seconds_until(reset)) <= 5
    assert usage(server)["budgets"][0]["resets_at"] == reset.isoformat(timespec="seconds")


def test_a_client_budget_refuses_that_client_only(tmp_path: Path, start: StartServer) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 300, client="openai-sdk")
    seed(db, 5000, client="claude-code")  # another client's use counts not
    server = start("--usage-db", str(db), "--token-budget", "openai-sdk=300/day")
    refused = chat(server, "sim-echo", agent="OpenAI/Python 1.99.0")
    assert refused.status_code == 429, refused.text
    assert "client 'openai-sdk'" in refused.json()["error"]["message"]
    assert chat(server, "sim-echo", agent="curl/8.5.0").status_code == 200
    budgets = usage(server)["budgets"]
    assert [(b["scope"], b["name"], b["used"], b["state"]) for b in budgets] == [
        ("client", "openai-sdk", 300, "exceeded")
    ]


def test_a_model_budget_refuses_that_model_only(tmp_path: Path, start: StartServer) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 200, model="sim-echo")
    server = start("--usage-db", str(db), "--token-budget", "model:sim-echo=200/month")
    refused = chat(server, "sim-echo")
    assert refused.status_code == 429, refused.text
    assert "model 'sim-echo'" in refused.json()["error"]["message"]
    assert chat(server, "sim-gemini").status_code == 200
    assert usage(server)["budgets"][0]["state"] == "exceeded"


def test_two_bridges_sharing_a_ledger_count_each_others_use(tmp_path: Path) -> None:
    db = tmp_path / "usage.sqlite3"
    args = ("--usage-db", str(db), "--daily-token-budget", "5")
    with running_bridge_server(*args) as first, running_bridge_server(*args) as second:
        assert chat(first, "sim-echo").status_code == 200  # 0 used: it goes, and uses > 5
        # The first bridge counts its own row at once, before any read of the file.
        assert chat(first, "sim-echo").status_code == 429
        # The second reads the first's row from the file (within its cache's two seconds).
        wait_for(lambda: usage(second)["budgets"][0]["state"] == "exceeded")
        refused = chat(second, "sim-echo")
        assert refused.status_code == 429, refused.text
        used = usage(second)["budgets"][0]["used"]
        assert used == sum(r["input_tokens"] + r["output_tokens"] for r in rows(db)) > 5


async def test_a_stream_running_when_the_budget_is_passed_is_not_cut(
    tmp_path: Path, start: StartServer
) -> None:
    db = tmp_path / "usage.sqlite3"
    words = [f"word{i} " for i in range(6)]
    slow: list[dict[str, Any]] = []
    for word in words:
        slow += [{"type": "text", "text": word}, {"type": "pause", "seconds": 0.3}]
    script = {"rules": [{"match": "SLOW", "reply": slow}]}
    server = start("--usage-db", str(db), "--daily-token-budget", "5", script=script)
    url = f"{server.base_url}/chat/completions"
    ask = {"model": "sim-echo", "messages": [{"role": "user", "content": "SLOW"}], "stream": True}
    quick = {"model": "sim-echo", "messages": [{"role": "user", "content": "Say hi"}]}
    async with aiohttp.ClientSession() as http, http.post(url, json=ask) as stream:
        assert stream.status == 200
        first = await stream.content.readline()  # the stream runs: admitted at 0 used
        assert first.startswith(b"data: "), first
        async with http.post(url, json=quick) as passing:
            assert passing.status == 200  # this one passes the budget
        async with http.post(url, json=quick) as refused:
            assert refused.status == 429
            assert (await refused.json())["error"]["code"] == "budget_exceeded"
        rest = (first + await stream.content.read()).decode()
    chunks = [
        json.loads(line.removeprefix("data: "))
        for line in rest.splitlines()
        if line.startswith("data: {")
    ]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "".join(words)
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
    assert rest.rstrip().endswith("data: [DONE]")
    wait_for(lambda: len(rows(db)) == 2)  # the stream's row and the one that passed
    assert {r["status"] for r in rows(db)} == {200}


def test_eighty_percent_of_a_budget_is_one_warning_in_the_log(
    tmp_path: Path, start: StartServer
) -> None:
    db = tmp_path / "usage.sqlite3"
    # Each chat bills a few hundred tokens (Copilot's own system prompt is in every prompt).
    seed(db, 8500)
    server = start("--usage-db", str(db), "--daily-token-budget", "10000")
    assert server.stderr_text().count("% used") == 0
    for _ in range(3):
        assert chat(server, "sim-echo").status_code == 200
    assert usage(server)["budgets"][0]["state"] in ("warning", "exceeded")
    log = server.stderr_text()
    assert log.count("The daily token budget is 85% used (8500 of 10000") == 1, log
    assert log.count("% used") == 1, log


async def test_the_websocket_answers_a_spent_budget_with_an_error_event(
    tmp_path: Path, start: StartServer
) -> None:
    db = tmp_path / "usage.sqlite3"
    seed(db, 50)
    server = start("--usage-db", str(db), "--daily-token-budget", "50")
    url = server.base_url.replace("http://", "ws://") + "/responses"
    frame = {"type": "response.create", "model": "sim-echo", "input": "Say hi"}
    async with aiohttp.ClientSession() as http, http.ws_connect(url) as ws:
        await ws.send_json(frame)
        event = await ws.receive_json(timeout=30)
    assert event["type"] == "error" and event["status"] == 429, event
    assert event["error"]["code"] == "budget_exceeded", event
    assert "daily token budget" in event["error"]["message"]
    retry = int(event["headers"]["retry-after"])
    assert abs(retry - seconds_until(next_local_midnight())) <= 5
    assert len(rows(db)) == 1
