"""The ledger failing never fails an answer: a full disk, a file another process holds locked
past the busy timeout, a folder that cannot be written, a full queue. Each time the answer
comes whole, the row is dropped, the warning is logged once per run of failures, and the
bridge keeps serving (and saves rows again once it can).

The bridge is its own aiohttp application here, with an editor that answers with text and a
usage report (the parts VS Code sends); the ledger is the real one, given a short busy timeout
or a small queue, or (full disk) SQLite's `max_page_count` on its writer's connection."""

from __future__ import annotations

import base64
import json
import logging
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bridge.app import create_app
from bridge.core.backend import ChatRequest, DataPart, ModelInfo, ResponsePart, TextPart
from bridge.settings import BridgeSettings, UsageSettings
from bridge.usage import wiring
from bridge.usage.ledger import UsageLedger
from bridge.usage.meter import USAGE_LEDGER
from bridge.usage.rows import INSERT, ToolCallRow

ANSWER = "Hello from the model."
USAGE = {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}
WARNING = "Usage rows are not being saved"
AGAIN = "Usage rows are being saved"
LOGGER = "bridge.usage.ledger"


class Answering:
    """The editor's side: one text part, then Copilot's `usage` data part."""

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="sim", maxInputTokens=100_000, maxOutputTokens=4096)]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        yield [TextPart(value=ANSWER)]
        data = base64.b64encode(json.dumps(USAGE).encode()).decode()
        yield [DataPart(mimeType="usage", data=data)]


class FullDiskLedger(UsageLedger):
    """A ledger whose file can grow no more: its writer's connection may not add a page, and
    the pages it has are filled (with rows of no client, told apart below)."""

    def _connect(self) -> sqlite3.Connection:
        conn = super()._connect()
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        filler = (time.time(), "", "", "", "", "", 0, 0, 0, 0, 0, None, 0, 0, None, 0, 0)
        try:
            while True:
                with conn:
                    conn.execute(INSERT, filler)
        except sqlite3.OperationalError as exc:
            assert "full" in str(exc)
        return conn


def ledger_kind(kind: type[UsageLedger] = UsageLedger, **options: Any) -> Callable[..., Any]:
    def make(path: Path, retention_days: int) -> UsageLedger:
        return kind(path, retention_days, **options)

    return make


async def bridge(
    monkeypatch: pytest.MonkeyPatch, path: Path, make: Callable[..., Any]
) -> TestClient[Any, Any]:
    monkeypatch.setattr(wiring, "UsageLedger", make)
    settings = BridgeSettings(usage=UsageSettings(database=str(path)))
    client: TestClient[Any, Any] = TestClient(TestServer(create_app(Answering(), settings)))
    await client.start_server()
    return client


async def ask(client: TestClient[Any, Any], stream: bool = False) -> None:
    """One chat completion; the answer must be whole, with the editor's usage."""
    body = {"model": "sim", "messages": [{"role": "user", "content": "Hi"}], "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    response = await client.post("/v1/chat/completions", json=body)
    assert response.status == 200, await response.text()
    if not stream:
        answer = await response.json()
        assert answer["choices"][0]["message"]["content"] == ANSWER
        assert answer["usage"]["prompt_tokens"] == 11
        assert answer["usage"]["completion_tokens"] == 4
        return
    text = await response.text()
    chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert content == ANSWER and text.rstrip().endswith("data: [DONE]")
    assert chunks[-1]["usage"]["prompt_tokens"] == 11


def ledger_of(client: TestClient[Any, Any]) -> UsageLedger:
    assert client.app is not None
    ledger: UsageLedger = client.app[USAGE_LEDGER]
    return ledger


def flush(client: TestClient[Any, Any]) -> None:
    assert ledger_of(client).flush(timeout=30)


def saved_rows(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM requests WHERE client != ''").fetchone()[0])


def warnings(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and text in r.getMessage()]


@pytest.fixture
def ledger_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    with caplog.at_level(logging.INFO, logger=LOGGER):
        yield caplog


@pytest.fixture
def locker() -> Iterator[Callable[[Path], subprocess.Popen[str]]]:
    """`lock(path)`: another process takes the ledger's write lock and holds it until its
    standard input closes."""
    started: list[subprocess.Popen[str]] = []
    code = (
        "import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "conn.execute('BEGIN EXCLUSIVE')\n"
        "print('locked', flush=True)\n"
        "sys.stdin.read()\n"
        "conn.execute('COMMIT')\n"
    )

    def lock(path: Path) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-c", code, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        assert process.stdout is not None and process.stdout.readline().strip() == "locked"
        return process

    yield lock
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def unlock(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=10) == 0


# --------------------------------------------------------------------------- the tests


async def test_full_disk_drops_rows_not_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ledger_log: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "usage.sqlite3"
    client = await bridge(monkeypatch, path, ledger_kind(FullDiskLedger))
    try:
        for stream in (False, True, False, True):
            await ask(client, stream)
            flush(client)  # each request's row fails on its own: still one warning
        assert (await client.get("/health")).status == 200
    finally:
        await client.close()
    assert saved_rows(path) == 0
    logged = warnings(ledger_log, WARNING)
    assert len(logged) == 1, logged
    assert "full" in logged[0]


async def test_locked_file_drops_rows_then_saves_again(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    ledger_log: pytest.LogCaptureFixture,
    locker: Callable[[Path], subprocess.Popen[str]],
) -> None:
    path = tmp_path / "usage.sqlite3"
    client = await bridge(monkeypatch, path, ledger_kind(busy_timeout=2.0))
    try:
        await ask(client)
        flush(client)
        assert saved_rows(path) == 1
        for run in range(2):  # two runs of failures: a warning each
            holder = locker(path)
            for stream in (False, True):
                await ask(client, stream)
                # The answer came while its row still waits on the lock (in the writer's
                # thread, for up to the busy timeout): the answer never waits on the disk.
                assert ledger_of(client)._rows.unfinished_tasks >= 1
            flush(client)
            assert saved_rows(path) == 1 + run
            assert len(warnings(ledger_log, WARNING)) == 1 + run
            assert "locked" in warnings(ledger_log, WARNING)[-1]
            unlock(holder)
            await ask(client)  # the file is free: saved again
            flush(client)
            assert saved_rows(path) == 2 + run
            assert len(warnings(ledger_log, AGAIN)) == 1 + run
    finally:
        await client.close()


async def test_unwritable_folder_drops_rows_not_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ledger_log: pytest.LogCaptureFixture
) -> None:
    # A folder that cannot be made (a file stands where it would go): refused even to root,
    # for whom permission bits are no obstacle, on every platform.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file", encoding="utf-8")
    path = blocker / "usage.sqlite3"
    client = await bridge(monkeypatch, path, ledger_kind())
    try:
        for stream in (False, True, False):
            await ask(client, stream)
            flush(client)
        status = (await client.get("/v1/usage")).status
        assert status in (200, 503)  # an empty ledger, or "cannot be read now": never a crash
    finally:
        await client.close()
    assert not path.exists() and blocker.read_text(encoding="utf-8") == "a file"
    logged = warnings(ledger_log, WARNING)
    assert len(logged) == 1 and "cannot open" in logged[0], logged


async def test_full_queue_drops_rows_not_answers(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    ledger_log: pytest.LogCaptureFixture,
    locker: Callable[[Path], subprocess.Popen[str]],
) -> None:
    path = tmp_path / "usage.sqlite3"
    # A busy timeout longer than the test: the writer waits on the lock all along.
    client = await bridge(monkeypatch, path, ledger_kind(busy_timeout=60.0, queue_rows=2))
    try:
        await ask(client)
        flush(client)
        holder = locker(path)
        # The writer waits on the lock with the first row; two more fill the queue; the
        # rest are dropped at once, from the event loop.
        for n in range(8):
            await ask(client, stream=n % 2 == 1)
        logged = warnings(ledger_log, WARNING)
        assert len(logged) == 1 and "queue" in logged[0], logged
        unlock(holder)
        flush(client)
        await ask(client)
        flush(client)
        # Once the lock went, the row the writer held and the two queued were written (the
        # writer may have taken the second with the first, leaving room for a fourth); the
        # others were dropped; and the log says rows are saved again.
        assert 1 + 3 + 1 <= saved_rows(path) <= 1 + 4 + 1
        assert len(warnings(ledger_log, WARNING)) == 1
        assert len(warnings(ledger_log, AGAIN)) == 1
    finally:
        await client.close()


def saved_tool_calls(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0])


def test_tool_calls_dropped_like_rows_never_raising(
    tmp_path: Path,
    ledger_log: pytest.LogCaptureFixture,
    locker: Callable[[Path], subprocess.Popen[str]],
) -> None:
    """`record_tool_call` (called by the MCP server on the event loop) shares the rows' queue
    and their failure handling: a full queue drops calls, logged once, and never raises."""
    path = tmp_path / "usage.sqlite3"
    ledger = UsageLedger(path, busy_timeout=60.0, queue_rows=2)
    call = ToolCallRow(time.time(), "codex", "editor_hover", 3.0, "ok", None, 42, False)
    try:
        ledger.record_tool_call(call)
        assert ledger.flush(timeout=30) and saved_tool_calls(path) == 1
        holder = locker(path)
        for _ in range(8):
            ledger.record_tool_call(call)  # returns at once, whatever the disk does
        logged = warnings(ledger_log, WARNING)
        assert len(logged) == 1 and "queue" in logged[0], logged
        unlock(holder)
        assert ledger.flush(timeout=30)
        ledger.record_tool_call(call)
        assert ledger.flush(timeout=30)
        # The two queued were written, with the one the writer may have taken before the
        # queue filled (and a fourth it may have taken with it); the others were dropped.
        assert 1 + 2 + 1 <= saved_tool_calls(path) <= 1 + 4 + 1
        assert len(warnings(ledger_log, WARNING)) == 1
        assert len(warnings(ledger_log, AGAIN)) == 1
    finally:
        ledger.close()
