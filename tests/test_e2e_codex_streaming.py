"""The real Codex CLI (0.169) against the bridge's streaming: keepalives and early errors.

- **Keepalive.** Codex times out a stream when no *parsed event* arrives for
  `stream_idle_timeout_ms` (SSE comment lines do not count; WebSocket pings do not either).
  With a 4 s idle timeout and a model silent for 9 s before its first part and 5 s between
  parts, Codex completes when the bridge sends keepalive events every second, over SSE and
  over WebSocket, and gives up ("idle timeout waiting for SSE") when keepalives are off.
- **429.** The editor answers the first request `Blocked`: before anything was streamed the
  bridge answers HTTP 429 with `Retry-After: 10` (over WebSocket: an error event with status
  429 and `headers: {"retry-after": "10"}`); Codex waits that long, retries, and the retry is
  answered (a script rule with `times: 1`).

`stream_max_retries = 0` where Codex must not retry, so that a failure is quick and plain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import StartServer
from test_e2e_codex import CODEX_TIMEOUT, CodexRun, codex_or_skip, run_codex

PROMPT = "Say hello slowly."
SILENT_MODEL = {
    "rules": [
        {
            "match": "Say hello",
            "reply": [
                {"type": "pause", "seconds": 9},
                {"type": "text", "text": "Slow"},
                {"type": "pause", "seconds": 5},
                {"type": "text", "text": " DONE"},
            ],
        }
    ]
}
IDLE_4S = "stream_idle_timeout_ms = 4000\nstream_max_retries = 0\n"
WEBSOCKET = "supports_websockets = true\n"
BLOCKED_ONCE = {
    "rules": [
        {
            "match": "Say hello",
            "times": 1,
            "reply": [{"type": "error", "code": "Blocked", "message": "The editor is busy."}],
        },
        {"match": "Say hello", "reply": [{"type": "text", "text": "DONE"}]},
    ]
}


@pytest.fixture(scope="module")
def codex() -> str:
    return codex_or_skip()


def events(run: CodexRun) -> list[dict[str, Any]]:
    """`codex exec --json`'s event lines."""
    return [json.loads(line) for line in run.result.stdout.splitlines() if line.startswith("{")]


def errors(run: CodexRun) -> list[str]:
    return [str(event.get("message")) for event in events(run) if event.get("type") == "error"]


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
@pytest.mark.parametrize("transport", ["sse", "websocket"])
def test_codex_waits_through_a_silent_model_with_keepalives(
    codex: str, bridge_server_factory: StartServer, tmp_path: Path, transport: str
) -> None:
    server = bridge_server_factory("--keepalive-seconds", "1", script=SILENT_MODEL)
    extra = IDLE_4S + (WEBSOCKET if transport == "websocket" else "")
    run = run_codex(
        codex,
        server,
        tmp_path,
        "sim-echo",
        PROMPT,
        provider_extra=extra,
        extra_flags=("--json",),
    )
    assert run.last_message == "Slow DONE", run.report
    assert errors(run) == [], run.report
    if transport == "websocket":
        assert "WebSocket connection opened" in server.stderr_text(), run.report
    server.assert_alive()


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_gives_up_on_a_silent_model_without_keepalives(
    codex: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    """The same run with keepalives off: what the keepalive events prevent."""
    server = bridge_server_factory("--keepalive-seconds", "0", script=SILENT_MODEL)
    run = run_codex(
        codex,
        server,
        tmp_path,
        "sim-echo",
        PROMPT,
        provider_extra=IDLE_4S,
        check=False,
        extra_flags=("--json",),
    )
    assert run.result.returncode != 0, run.report
    assert any("idle timeout waiting for SSE" in error for error in errors(run)), run.report
    server.assert_alive()


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_sees_a_429_and_retries_after_retry_after(
    codex: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    server = bridge_server_factory(script=BLOCKED_ONCE)
    run = run_codex(codex, server, tmp_path, "sim-echo", PROMPT, extra_flags=("--json",))
    assert run.last_message == "DONE", run.report
    # Codex names the HTTP status it retried on; on a 200 with response.failed it could not.
    (retry,) = errors(run)
    assert "Reconnecting... 1/" in retry and "429 Too Many Requests" in retry, run.report
    assert server.stderr_text().count("The editor failed the request") == 1, run.report
    server.assert_alive()


@pytest.mark.timeout(CODEX_TIMEOUT + 60)
def test_codex_over_websocket_retries_a_429_error_event(
    codex: str, bridge_server_factory: StartServer, tmp_path: Path
) -> None:
    """Codex reads the error event's status (and its `retry-after` header) like an HTTP
    answer's: it drops the connection, waits, opens a new one and sends the turn again."""
    server = bridge_server_factory(script=BLOCKED_ONCE)
    run = run_codex(codex, server, tmp_path, "sim-echo", PROMPT, provider_extra=WEBSOCKET)
    log = server.stderr_text()
    assert run.last_message == "DONE", run.report
    assert log.count("The editor failed the request") == 1, run.report
    assert log.count("WebSocket connection opened") == 2, run.report  # the retry reconnected
    server.assert_alive()
