"""The ledger of real `maestro-bridge serve` processes: two of them (two windows) sharing one
file, `maestro-bridge usage` reading it with no bridge running, `--usage-db none`, retention,
a cancelled stream, the API's key and Host/Origin rules on a real server, and never a prompt,
an answer or a key in the file."""

from __future__ import annotations

import datetime
import http.client
import json
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from conftest import StartServer
from plain_http import post
from test_usage_queries import ledger_with, row
from test_usage_tool_calls import ledger_with_calls, tool_call
from usage_checks import (
    get_usage,
    ledger_bytes,
    run_usage_command,
    wait_for_requests,
    wait_for_usage,
)

from bridge.usage.queries import COUNTS


def chat(
    base_url: str,
    text: str,
    agent: str,
    stream: bool = False,
    headers: dict[str, str] | None = None,
) -> Any:
    """A chat completion as the named agent; the usage it was sent."""
    body: dict[str, Any] = {"model": "sim-echo", "messages": [{"role": "user", "content": text}]}
    if stream:
        body |= {"stream": True, "stream_options": {"include_usage": True}}
    reply = post(
        f"{base_url}/chat/completions", body, headers={"User-Agent": agent, **(headers or {})}
    )
    assert reply.status_code == 200, reply.text
    if not stream:
        return reply.json()["usage"]
    chunks = [json.loads(line[6:]) for line in reply.text.splitlines() if line[6:7] == "{"]
    return chunks[-1]["usage"]


def message(base_url: str, text: str, agent: str) -> Any:
    """An Anthropic message as the named agent; its usage in the ledger's terms."""
    body = {"model": "sim-echo", "max_tokens": 200, "messages": [{"role": "user", "content": text}]}
    reply = post(
        f"{base_url}/messages",
        body,
        headers={"User-Agent": agent, "anthropic-version": "2023-06-01"},
    )
    assert reply.status_code == 200, reply.text
    usage = reply.json()["usage"]
    cached = usage.get("cache_read_input_tokens") or 0
    return {
        "prompt_tokens": usage["input_tokens"] + cached,
        "completion_tokens": usage["output_tokens"],
    }


def test_two_bridges_share_one_file(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    db = tmp_path / "both-windows" / "usage.sqlite3"
    first = bridge_server_factory("--usage-db", str(db))
    second = bridge_server_factory("--usage-db", str(db))
    sent: list[tuple[str, Any]] = []
    lock = threading.Lock()

    def window_one(n: int) -> None:
        usage = chat(first.base_url, f"first window, turn {n}", "OpenAI/Python 3.57.0", n % 2 == 1)
        with lock:
            sent.append(("openai-sdk", usage))

    def window_two(n: int) -> None:
        usage = message(second.base_url, f"second window says {'hi ' * n}", "claude-cli/2.1.330")
        with lock:
            sent.append(("claude-code", usage))

    # Both processes write at the same moments: WAL and the busy timeout keep every row.
    threads = [
        threading.Thread(target=f, args=(n,)) for n in range(6) for f in (window_one, window_two)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(sent) == 12

    expected_in = sum(u["prompt_tokens"] for _, u in sent)
    expected_out = sum(u["completion_tokens"] for _, u in sent)
    for server in (first, second):  # each reads what both wrote
        body = wait_for_requests(server.root_url, 12)
        assert body["totals"]["input_tokens"] == expected_in
        assert body["totals"]["output_tokens"] == expected_out
        clients = {r["client"]: r for r in body["by_client"]}
        assert clients["openai-sdk"]["requests"] == 6 and clients["claude-code"]["requests"] == 6
        assert clients["claude-code"]["input_tokens"] == sum(
            u["prompt_tokens"] for c, u in sent if c == "claude-code"
        )
        paths = {(r["client"], r["dialect"], r["path"], r["streamed"]) for r in body["recent"]}
        assert paths == {
            ("openai-sdk", "chat", "/v1/chat/completions", False),
            ("openai-sdk", "chat", "/v1/chat/completions", True),
            ("claude-code", "anthropic", "/v1/messages", False),
        }
    first.assert_alive()
    second.assert_alive()
    assert "not being saved" not in first.stderr_text() + second.stderr_text()

    # `maestro-bridge usage` reads the file itself: the same tables as GET /v1/usage.
    _, served = get_usage(first.root_url, "?recent=20")
    as_json = run_usage_command("--usage-db", str(db), "--json")
    assert as_json.returncode == 0, as_json.stderr
    printed = json.loads(as_json.stdout)
    assert printed["totals"] == served["totals"] and printed["by_client"] == served["by_client"]
    table = run_usage_command("--usage-db", str(db))
    assert table.returncode == 0, table.stderr
    assert "12 requests, 0 failed" in table.stdout
    assert f"input {expected_in} tokens" in table.stdout
    client_line = next(line for line in table.stdout.splitlines() if line.startswith("claude-code"))
    cells = client_line.split()[1:]
    assert cells[: len(COUNTS)] == [str(clients["claude-code"][name]) for name in COUNTS]
    assert cells[len(COUNTS)] == "0.00+?"  # the simulated models state no prices


def test_usage_command_with_no_bridge_running(tmp_path: Path) -> None:
    db = tmp_path / "usage.sqlite3"
    day = datetime.date.today()
    ledger_with(db, [row(day, hour=0, client="gemini-cli", input_tokens=321, output_tokens=12)])
    table = run_usage_command("--usage-db", str(db))
    assert table.returncode == 0, table.stderr
    assert "1 requests, 0 failed" in table.stdout and "gemini-cli" in table.stdout
    since = run_usage_command("--usage-db", str(db), "--json", "--since", day.isoformat())
    body = json.loads(since.stdout)
    assert body["since"] == day.isoformat() and body["totals"]["input_tokens"] == 321
    assert body["recent"][0]["client"] == "gemini-cli"
    # An absent file is an empty ledger, and it is not made by reading.
    absent = run_usage_command("--usage-db", str(tmp_path / "none-yet.sqlite3"), "--json")
    assert absent.returncode == 0 and json.loads(absent.stdout)["totals"]["requests"] == 0
    assert not (tmp_path / "none-yet.sqlite3").exists()
    bad = run_usage_command("--usage-db", str(db), "--since", "2026-02-30")
    assert bad.returncode == 2 and "ISO date" in bad.stderr
    off = run_usage_command("--usage-db", "none")
    assert off.returncode == 2 and "off" in off.stderr


def test_usage_command_prints_editor_tools(tmp_path: Path) -> None:
    db = tmp_path / "usage.sqlite3"
    day = datetime.date.today()
    # An unknown tool's name is what a client sent: here an escape sequence that would
    # clear the terminal.
    rogue = "x\x1b[2Jy"
    calls = [
        tool_call(day, hour=0, tool="editor_hover", duration_ms=12.5),
        tool_call(day, hour=0, tool="editor_hover", duration_ms=30.0, outcome="error"),
        tool_call(day, hour=0, tool="editor_hover", duration_ms=20.0),
        tool_call(day, hour=0, tool=rogue, duration_ms=1.0, outcome="unknown"),
    ]
    ledger_with_calls(db, calls, [row(day, hour=0)])
    table = run_usage_command("--usage-db", str(db))
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert "1 requests, 0 failed" in table.stdout
    assert "Editor tools: 4 calls, 2 failed" in lines
    start = lines.index("By tool")
    assert lines[start + 1].split() == ["tool", "calls", "errors", "p50_ms"]
    assert lines[start + 2].split() == ["editor_hover", "3", "1", "20.0"]
    assert lines[start + 3].split() == ["x\\x1b[2Jy", "1", "1", "1.0"]
    assert "\x1b" not in table.stdout
    as_json = run_usage_command("--usage-db", str(db), "--json")
    body = json.loads(as_json.stdout)
    assert body["tools"]["calls"] == 4 and body["tools"]["by_tool"][1]["tool"] == rogue
    assert [t["tool"] for t in body["recent_tools"]] == [rogue, *["editor_hover"] * 3]
    # No tool calls: the section says so, without a table.
    empty = run_usage_command("--usage-db", str(tmp_path / "none-yet.sqlite3"))
    assert "Editor tools: 0 calls, 0 failed" in empty.stdout and "By tool" not in empty.stdout


def test_usage_db_none_records_nothing(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = bridge_server_factory("--usage-db", "none", env={"XDG_STATE_HOME": str(state)})
    chat(server.base_url, "hello", "OpenAI/Python 3.57.0")
    status, body = get_usage(server.root_url)
    assert status == 404, body
    assert body["error"]["code"] == "usage_off"
    assert "usage ledger is off" in body["error"]["message"]
    assert not list(state.rglob("*.sqlite3*")), list(state.rglob("*"))
    # Without the flag the same state folder gets the file (so the check above could fail).
    other = bridge_server_factory(env={"XDG_STATE_HOME": str(state)})
    chat(other.base_url, "hello", "OpenAI/Python 3.57.0")
    wait_for_requests(other.root_url, 1)
    assert (state / "maestro-bridge" / "usage.sqlite3").exists()


def test_retention_forgets_old_rows_at_start(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    db = tmp_path / "usage.sqlite3"
    today = datetime.date.today()
    ledger_with(
        db,
        [
            row(today - datetime.timedelta(days=50), client="old"),
            row(today - datetime.timedelta(days=5), client="recent"),
        ],
    )
    server = bridge_server_factory("--usage-db", str(db), "--usage-retention-days", "10")
    body = wait_for_usage(
        server.root_url,
        lambda b: [r["client"] for r in b["by_client"]] == ["recent"],
        "?since=2000-01-01",
    )
    assert [r["client"] for r in body["by_client"]] == ["recent"]


def test_cancelled_stream_is_a_cancelled_row(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    db = tmp_path / "usage.sqlite3"
    script = {
        "rules": [
            {
                "match": "slow",
                "reply": [
                    {"type": "text", "text": "A first word"},
                    {"type": "pause", "seconds": 30},
                    {"type": "text", "text": "and the rest"},
                ],
            }
        ]
    }
    server = bridge_server_factory("--usage-db", str(db), script=script)
    url = urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    body = {"model": "sim-echo", "stream": True, "messages": [{"role": "user", "content": "slow"}]}
    conn.request(
        "POST",
        "/v1/chat/completions",
        json.dumps(body),
        {"Content-Type": "application/json", "User-Agent": "OpenAI/JS 6.49.0"},
    )
    response = conn.getresponse()
    assert response.status == 200
    seen = b""
    while b"t word" not in seen:  # "A firs", "t word": the first two parts
        seen += response.read1(4096)
    conn.close()  # the client goes away mid-answer
    summary = wait_for_requests(server.root_url, 1)
    (cancelled,) = summary["recent"]
    assert cancelled["cancelled"] is True and cancelled["streamed"] is True
    assert cancelled["status"] == 200 and cancelled["error"] is None
    assert cancelled["client"] == "openai-sdk" and cancelled["dialect"] == "chat"
    assert cancelled["first_token_ms"] is not None
    assert cancelled["duration_ms"] < 30_000  # ended when the client left, not with the model
    # No usage came from the editor: the bridge counted what was sent and made.
    assert cancelled["estimated"] is True and cancelled["input_tokens"] > 0
    assert cancelled["output_tokens"] > 0


def test_key_rules_and_nothing_secret_in_the_file(
    bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    db = tmp_path / "usage.sqlite3"
    key = "sk-maestro-usage-test-key-7f3a9c"
    prompt = "the secret plan is zanzibar-quokka-4471"
    server = bridge_server_factory("--usage-db", str(db), "--api-key", key)
    auth = {"Authorization": f"Bearer {key}"}
    usage = chat(server.base_url, prompt, "OpenAI/Python 3.57.0", headers=auth)
    chat(server.base_url, prompt, "OpenAI/Python 3.57.0", stream=True, headers=auth)
    assert get_usage(server.root_url)[0] == 401
    assert get_usage(server.root_url, headers={"Authorization": "Bearer wrong"})[0] == 401
    assert get_usage(server.root_url, headers={**auth, "Host": "evil.example"})[0] == 403
    origin = {**auth, "Origin": "https://evil.example"}
    assert get_usage(server.root_url, headers=origin)[0] == 403
    body = wait_for_usage(
        server.root_url, lambda b: b["totals"]["requests"] >= 2, "?recent=5", auth
    )
    assert body["totals"]["requests"] == 2
    assert body["totals"]["input_tokens"] == 2 * usage["prompt_tokens"]
    stored = ledger_bytes(db)
    for secret in (prompt, "zanzibar-quokka", "You said", key, "maestro-usage-test"):
        assert secret.encode() not in stored, secret
    assert b"openai-sdk" in stored  # what is recorded is there, in these bytes
