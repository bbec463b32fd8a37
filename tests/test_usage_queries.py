"""The ledger's parts on their own: client names from the captured User-Agents, the default
file per platform, spans of days, and the summary of a ledger whose rows are known."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT
from multidict import CIMultiDict

from bridge.usage.clients import client_of
from bridge.usage.ledger import UsageLedger, connect, open_for_reading
from bridge.usage.location import default_usage_path
from bridge.usage.queries import Span, summary, tokens_used
from bridge.usage.rows import UsageRow

FIXTURES = REPO_ROOT / "tests" / "fixtures"


def captured_headers(path: Path) -> CIMultiDict[str]:
    """The headers a capture kept (`NAME.meta.json`, or the `headers` of a whole request),
    case-insensitive as aiohttp gives them."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return CIMultiDict(data["headers"])


def first_capture(folder: str, pattern: str) -> CIMultiDict[str]:
    paths = sorted((FIXTURES / folder).glob(pattern))
    assert paths, f"no capture {folder}/{pattern}"
    return captured_headers(paths[0])


# --------------------------------------------------------------------------- clients


@pytest.mark.parametrize(
    ("folder", "pattern", "client"),
    [
        ("clients", "codex-hi-1.meta.json", "codex"),
        ("clients", "agents-run-1.meta.json", "openai-agents"),
        ("clients", "py-*.meta.json", "openai-sdk"),
        ("clients", "node-*.meta.json", "openai-sdk"),
        ("claude_code", "text-default-1.json", "claude-code"),
        ("gemini_cli", "text-auto-1.json", "gemini-cli"),
        # Aider talks through LiteLLM and the openai SDK and sends that SDK's User-Agent only
        # (docs/usage.md says so): it is counted as the SDK.
        ("aider", "diff-gpt-4.1-1.json", "openai-sdk"),
    ],
)
def test_client_of_captured_user_agents(folder: str, pattern: str, client: str) -> None:
    headers = first_capture(folder, pattern)
    assert client_of(headers) == client, headers.get("User-Agent")


@pytest.mark.parametrize(
    ("headers", "client"),
    [
        # The SDKs' own User-Agents, as their current releases send them.
        ({"User-Agent": "Anthropic/Python 2.12.0"}, "anthropic-sdk"),
        ({"User-Agent": "Anthropic/JS 0.60.0"}, "anthropic-sdk"),
        ({"User-Agent": "google-genai-sdk/3.4.0 gl-python/3.11.7"}, "google-genai-sdk"),
        # A client that sends its own User-Agent and Google's client header.
        (
            {"User-Agent": "curl/8.5", "X-Goog-Api-Client": "google-genai-sdk/1.30.0"},
            "google-genai-sdk",
        ),
        ({"User-Agent": "Aider/0.86.0 OpenAI/Python 2.20.0"}, "aider"),
        ({"User-Agent": "ai-sdk/openai/2.0.0"}, "vercel-ai-sdk"),
        ({"User-Agent": "curl/8.5.0"}, "other"),
        ({}, "other"),
    ],
)
def test_client_of_other_agents(headers: dict[str, str], client: str) -> None:
    assert client_of(CIMultiDict(headers)) == client


def test_gemini_cli_is_named_before_the_sdk_it_sends_too() -> None:
    headers = first_capture("gemini_cli", "text-auto-1.json")
    assert "google-genai-sdk/" in headers["X-Goog-Api-Client"]
    assert client_of(headers) == "gemini-cli"


# --------------------------------------------------------------------------- location


def test_default_path_linux_follows_xdg_state_home() -> None:
    env = {"HOME": "/home/me", "XDG_STATE_HOME": "/state"}
    assert default_usage_path(env, "linux") == Path("/state/maestro-bridge/usage.sqlite3")
    assert default_usage_path({"HOME": "/home/me"}, "linux") == Path(
        "/home/me/.local/state/maestro-bridge/usage.sqlite3"
    )


def test_default_path_macos_is_application_support() -> None:
    env = {"HOME": "/Users/me", "XDG_STATE_HOME": "/ignored"}
    assert default_usage_path(env, "darwin") == Path(
        "/Users/me/Library/Application Support/maestro-bridge/usage.sqlite3"
    )


def test_default_path_windows_is_local_app_data() -> None:
    env = {"USERPROFILE": r"C:\Users\me", "LOCALAPPDATA": r"D:\Local", "HOME": "/c/msys"}
    assert default_usage_path(env, "win32") == Path(r"D:\Local") / "maestro-bridge" / (
        "usage.sqlite3"
    )
    # Without LOCALAPPDATA (a service's environment): the profile's AppData\Local.
    assert default_usage_path({"USERPROFILE": r"C:\Users\me"}, "win32") == (
        Path(r"C:\Users\me") / "AppData" / "Local" / "maestro-bridge" / "usage.sqlite3"
    )


# --------------------------------------------------------------------------- spans


def local_midnight(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp()


def test_span_bounds_are_local_midnights() -> None:
    span = Span(date(2026, 3, 1), date(2026, 3, 3))
    start, end = span.bounds()
    assert start == local_midnight(date(2026, 3, 1))
    assert end == local_midnight(date(2026, 3, 4))  # the whole last day included


def test_span_last_days_counts_today() -> None:
    span = Span.last_days(30, date(2026, 3, 31))
    assert span == Span(date(2026, 3, 2), date(2026, 3, 31))
    assert Span.last_days(1, date(2026, 3, 31)) == Span(date(2026, 3, 31), date(2026, 3, 31))


def test_span_far_dates_mean_from_the_start_and_to_the_end() -> None:
    start, end = Span(date.min, date.max).bounds()
    assert start <= 0 and end > local_midnight(date(3000, 1, 1))
    assert Span.last_days(30, date(1, 1, 5)).since == date.min


# --------------------------------------------------------------------------- summary


def row(day: date, hour: int = 12, **fields: Any) -> UsageRow:
    values: dict[str, Any] = {
        "started": local_midnight(day) + hour * 3600,
        "client": "codex",
        "dialect": "responses",
        "path": "/v1/responses",
        "requested_model": "gpt-5",
        "model": "gpt-5",
        "input_tokens": 100,
        "cached_tokens": 0,
        "output_tokens": 10,
        "reasoning_tokens": 0,
        "estimated": False,
        "first_token_ms": None,
        "duration_ms": 50.0,
        "status": 200,
        "error": None,
        "streamed": True,
        "cancelled": False,
    }
    values.update(fields)
    return UsageRow(**values)


def ledger_with(path: Path, rows: list[UsageRow]) -> None:
    """Rows written the way a bridge writes them: through the ledger's own writer."""
    ledger = UsageLedger(path)
    for one in rows:
        ledger.record(one)
    assert ledger.flush()
    ledger.close()


D1, D2, D3 = date(2026, 5, 1), date(2026, 5, 2), date(2026, 5, 3)
KNOWN = [
    row(D1, client="codex", model="gpt-5", input_tokens=1000, cached_tokens=800,
        output_tokens=50, reasoning_tokens=20, first_token_ms=100.0),
    row(D1, client="claude-code", dialect="anthropic", path="/v1/messages",
        model="claude-sonnet-4.5", input_tokens=2000, cached_tokens=200, output_tokens=300,
        first_token_ms=200.0),
    row(D2, client="claude-code", dialect="anthropic", path="/v1/messages",
        model="claude-sonnet-4.5", input_tokens=0, output_tokens=0, status=429,
        error="rate_limit_exceeded"),
    row(D2, hour=0, client="gemini-cli", dialect="gemini", model="gemini-2.5-pro",
        input_tokens=500, output_tokens=40, first_token_ms=300.0, streamed=False),
    row(D3, hour=23, client="codex", model="gpt-5", input_tokens=700, output_tokens=70,
        first_token_ms=400.0, cancelled=True),
]  # fmt: skip


@pytest.fixture
def known(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    path = tmp_path / "usage.sqlite3"
    ledger_with(path, KNOWN)
    conn = open_for_reading(path)
    yield conn
    conn.close()


def test_summary_totals_and_groups(known: sqlite3.Connection) -> None:
    body = summary(known, Span(D1, D3))
    assert body["object"] == "usage"
    assert (body["since"], body["until"]) == ("2026-05-01", "2026-05-03")
    totals = body["totals"]
    assert {k: totals[k] for k in totals if not k.startswith(("first", "cache_hit"))} == {
        "requests": 5,
        "input_tokens": 4200,
        "cached_tokens": 1000,
        "cache_write_tokens": 0,
        "output_tokens": 460,
        "reasoning_tokens": 20,
        "errors": 1,
        "credits": 0.0,
        "credits_reported": 0.0,
        "credits_unknown": 5,  # no row has a price
    }
    assert totals["cache_hit_ratio"] == round(1000 / 4200, 4)
    # Nearest rank over 100, 200, 300, 400 ms (the failed request had no first token).
    assert totals["first_token_ms_p50"] == 200.0
    assert totals["first_token_ms_p95"] == 400.0
    clients = {r["client"]: r for r in body["by_client"]}
    assert list(clients) == ["claude-code", "codex", "gemini-cli"]
    assert clients["claude-code"] == {
        "client": "claude-code",
        "requests": 2,
        "input_tokens": 2000,
        "cached_tokens": 200,
        "cache_write_tokens": 0,
        "output_tokens": 300,
        "reasoning_tokens": 0,
        "errors": 1,
        "credits": 0.0,
        "credits_reported": 0.0,
        "credits_unknown": 2,
    }
    assert clients["codex"]["input_tokens"] == 1700 and clients["codex"]["errors"] == 0
    models = {r["model"]: r["requests"] for r in body["by_model"]}
    assert models == {"claude-sonnet-4.5": 2, "gemini-2.5-pro": 1, "gpt-5": 2}
    days = {r["day"]: r["input_tokens"] for r in body["by_day"]}
    assert days == {"2026-05-01": 3000, "2026-05-02": 500, "2026-05-03": 700}


def test_summary_edges_are_whole_local_days(known: sqlite3.Connection) -> None:
    # D2's first row starts at local midnight, D3's at 23:00: both edges are inside.
    only_d2 = summary(known, Span(D2, D2))
    assert only_d2["totals"]["requests"] == 2
    assert [r["day"] for r in only_d2["by_day"]] == ["2026-05-02"]
    only_d3 = summary(known, Span(D3, D3))
    assert only_d3["totals"]["requests"] == 1
    assert (
        summary(known, Span(D3 + timedelta(days=1), D3 + timedelta(days=9)))["totals"]["requests"]
        == 0
    )


def test_summary_empty_span_has_no_ratios_to_divide(known: sqlite3.Connection) -> None:
    totals = summary(known, Span(date(2020, 1, 1), date(2020, 1, 2)))["totals"]
    assert totals["requests"] == 0 and totals["cache_hit_ratio"] == 0.0
    assert totals["first_token_ms_p50"] is None and totals["first_token_ms_p95"] is None


def test_recent_rows_newest_first_and_bounded(known: sqlite3.Connection) -> None:
    recent = summary(known, Span(D1, D3), recent=2)["recent"]
    assert len(recent) == 2
    assert recent[0]["client"] == "codex" and recent[0]["cancelled"] is True
    assert recent[1]["client"] == "claude-code" and recent[1]["error"] == "rate_limit_exceeded"
    assert datetime.fromisoformat(recent[0]["started"]).date() == D3
    assert set(recent[0]) >= {"dialect", "path", "requested_model", "estimated", "streamed"}
    assert summary(known, Span(D1, D3), recent=0)["recent"] == []
    assert len(summary(known, Span(D1, D3), recent=10_000)["recent"]) == 5


def test_tokens_used_counts_input_and_output(known: sqlite3.Connection) -> None:
    assert tokens_used(known, local_midnight(D1)) == 4200 + 460
    assert tokens_used(known, local_midnight(D2)) == 500 + 40 + 700 + 70
    assert tokens_used(known, local_midnight(D1), client="claude-code") == 2300
    assert tokens_used(known, local_midnight(D1), model="gpt-5") == 1050 + 770
    assert tokens_used(known, local_midnight(D3) + 86_400) == 0


def test_percentiles_nearest_rank(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    ledger_with(path, [row(D1, first_token_ms=float(ms)) for ms in range(1, 101)])
    with sqlite3.connect(path) as conn:
        totals = summary(conn, Span(D1, D1))["totals"]
    assert (totals["first_token_ms_p50"], totals["first_token_ms_p95"]) == (50.0, 95.0)


def test_reading_a_file_not_made_or_without_its_table_is_empty(tmp_path: Path) -> None:
    absent = open_for_reading(tmp_path / "absent.sqlite3")
    assert summary(absent, Span(D1, D1))["totals"]["requests"] == 0
    assert not (tmp_path / "absent.sqlite3").exists()
    bare = tmp_path / "bare.sqlite3"
    sqlite3.connect(bare).close()  # a bridge that created the file, not yet its table
    assert summary(open_for_reading(bare), Span(D1, D1))["totals"]["requests"] == 0


def test_connect_makes_a_wal_file(tmp_path: Path) -> None:
    conn = connect(tmp_path / "deep" / "er" / "usage.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
