"""AI credits in the usage ledger: Copilot's own figure (`copilot_usage.total_nano_aiu`) marked
as reported, else an estimate from the model's prices (the editor's, else `usage.creditRates`),
with cache writes, in real SQLite; and a file from an older bridge read and upgraded."""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import AsyncGenerator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    DataPart,
    ModelInfo,
    ModelPrices,
    ResponsePart,
    TextPart,
)
from bridge.core.editor_usage import UsageCounts, usage_counts
from bridge.settings import BridgeSettings
from bridge.usage.credits import credits_of, estimate
from bridge.usage.ledger import UsageLedger, open_for_reading
from bridge.usage.meter import MeteredBackend
from bridge.usage.queries import Span, summary

CLAUDE = ModelPrices(input=300, output=1500, cacheRead=30, cacheWrite=375)  # per 1M tokens
TODAY = date.today()


def _usage_part(raw: dict[str, object]) -> str:
    return base64.b64encode(json.dumps(raw).encode()).decode()


def test_copilots_billed_credits_are_read_from_its_usage_part() -> None:
    raw = {
        "prompt_tokens": 1000,
        "completion_tokens": 50,
        "prompt_tokens_details": {"cached_tokens": 800, "cache_creation_input_tokens": 100},
        "copilot_usage": {"total_nano_aiu": 123_000_000},
    }
    counts = usage_counts(_usage_part(raw))
    assert counts == UsageCounts(1000, 50, 0, 800, 100, 123_000_000)
    for bad in (-1, "5", True, float("nan"), None):
        raw["copilot_usage"] = {"total_nano_aiu": bad}
        assert usage_counts(_usage_part(raw)) == UsageCounts(1000, 50, 0, 800, 100, None)


def test_the_estimate_prices_fresh_input_cache_reads_writes_and_output_apart() -> None:
    usage = UsageCounts(10_000, 1_000, 0, cached_tokens=8_000, cache_write_tokens=1_500)
    # 500 fresh at 300, 8,000 read at 30, 1,500 written at 375, 1,000 out at 1,500 (per 1M).
    expected = (500 * 300 + 8_000 * 30 + 1_500 * 375 + 1_000 * 1_500) / 1_000_000
    assert estimate(usage, CLAUDE) == pytest.approx(expected)
    # No cache prices: the cache costs the input price; no input price: no estimate.
    flat = ModelPrices(input=300, output=1500)
    assert estimate(usage, flat) == pytest.approx((10_000 * 300 + 1_000 * 1_500) / 1e6)
    assert estimate(usage, ModelPrices(output=1)) is None
    # Copilot's own figure wins, and says so.
    billed = usage._replace(nano_credits=2_500_000_000)
    assert credits_of(billed, CLAUDE) == (2.5, True)
    estimated = credits_of(usage, CLAUDE)
    assert estimated is not None and not estimated.reported
    assert estimated.credits == pytest.approx(expected)
    assert credits_of(usage, None) is None


class _Editor:
    """A backend whose model states prices (or not) and answers with a usage part."""

    def __init__(self, usage: dict[str, object], prices: ModelPrices | None) -> None:
        self.usage, self.model_prices = usage, prices

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="m", prices=self.model_prices)]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())

    async def chat(self, request: ChatRequest) -> AsyncGenerator[list[ResponsePart], None]:
        yield [TextPart(value="hi"), DataPart(mimeType="usage", data=_usage_part(self.usage))]


async def _one_row(
    tmp_path: Path, editor: _Editor, rates: dict[str, ModelPrices]
) -> dict[str, Any]:
    path = tmp_path / "usage.sqlite3"
    ledger = UsageLedger(path)
    metered = MeteredBackend(editor, ledger, rates)
    await metered.list_models()
    request = ChatRequest(
        model="m", messages=[ChatMessage(role="user", content=[TextPart(value="x")])]
    )
    async for _ in metered.chat(request):
        pass
    assert ledger.flush()
    ledger.close()
    conn = open_for_reading(path)
    try:
        return summary(conn, Span(TODAY, TODAY), 5)
    finally:
        conn.close()


USAGE = {
    "prompt_tokens": 10_000,
    "completion_tokens": 1_000,
    "prompt_tokens_details": {"cached_tokens": 8_000, "cache_creation_input_tokens": 1_500},
}


async def test_the_ledger_records_reported_credits_and_cache_writes(tmp_path: Path) -> None:
    billed = {**USAGE, "copilot_usage": {"total_nano_aiu": 700_000_000}}
    body = await _one_row(tmp_path, _Editor(billed, CLAUDE), {})
    totals = body["totals"]
    assert totals["cache_write_tokens"] == 1_500 and totals["cached_tokens"] == 8_000
    assert (totals["credits"], totals["credits_reported"], totals["credits_unknown"]) == (
        0.7,
        0.7,
        0,
    )
    row = body["recent"][0]
    assert row["credits_reported"] is True and row["estimated"] is False
    assert body["by_model"][0]["credits"] == 0.7


async def test_without_copilots_figure_the_editors_prices_then_the_setting_estimate(
    tmp_path: Path,
) -> None:
    expected = round((500 * 300 + 8_000 * 30 + 1_500 * 375 + 1_000 * 1_500) / 1e6, 4)
    body = await _one_row(tmp_path / "a", _Editor(USAGE, CLAUDE), {})
    assert (body["totals"]["credits"], body["totals"]["credits_reported"]) == (expected, 0.0)
    assert body["recent"][0]["credits_reported"] is False
    body = await _one_row(tmp_path / "b", _Editor(USAGE, None), {"m": CLAUDE})
    assert body["totals"]["credits"] == expected
    body = await _one_row(tmp_path / "c", _Editor(USAGE, None), {})
    assert body["totals"]["credits_unknown"] == 1 and body["recent"][0]["credits"] is None


def test_credit_rates_setting() -> None:
    settings = BridgeSettings.model_validate(
        {"usage": {"creditRates": {"claude-sonnet-4.5": {"input": 300, "output": 1500}}}}
    )
    rate = settings.usage.creditRates["claude-sonnet-4.5"]
    assert (rate.input, rate.output, rate.cacheRead) == (300, 1500, None)
    with pytest.raises(ValueError):
        BridgeSettings.model_validate({"usage": {"creditRates": {"m": {"input": -1, "output": 1}}}})


SCHEMA_2 = """
CREATE TABLE requests (
    id INTEGER PRIMARY KEY, started REAL NOT NULL, client TEXT NOT NULL, dialect TEXT NOT NULL,
    path TEXT NOT NULL, requested_model TEXT NOT NULL, model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL, first_token_ms REAL, duration_ms REAL NOT NULL,
    status INTEGER NOT NULL, error TEXT, streamed INTEGER NOT NULL, cancelled INTEGER NOT NULL
);
PRAGMA user_version = 2;
"""


def test_an_older_file_reads_as_unpriced_and_is_upgraded_by_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    started = datetime.now().timestamp()
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_2)
        conn.execute(
            "INSERT INTO requests VALUES (NULL, ?, 'old', 'chat', '/v1/x', 'm', 'm', "
            "10, 0, 5, 0, 0, 1.0, 2.0, 200, NULL, 0, 0)",
            (started,),
        )
    conn.close()
    reader = open_for_reading(path)
    totals = summary(reader, Span(TODAY, TODAY))["totals"]
    reader.close()
    assert (totals["cache_write_tokens"], totals["credits_unknown"]) == (0, 1)
    with sqlite3.connect(path) as conn:  # reading changed nothing
        columns = {row[1] for row in conn.execute("PRAGMA table_info(requests)")}
    conn.close()
    assert "credits" not in columns
    UsageLedger(path).close()  # a bridge of this version opens it
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(requests)")}
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    conn.close()
    assert {"cache_write_tokens", "credits", "credits_reported"} <= columns


def test_serve_takes_credit_rates_as_flags() -> None:
    import argparse

    from bridge.usage.command import add_serve_options, serve_options

    parser = argparse.ArgumentParser()
    add_serve_options(parser)
    args = parser.parse_args(
        ["--credit-rate", "sim-echo=100/200", "--credit-rate", "m=1/2/0.1/1.25"]
    )
    rates = serve_options(args)["usage"]["creditRates"]
    assert rates == {
        "sim-echo": {"input": 100, "output": 200},
        "m": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1.25},
    }
    BridgeSettings.model_validate({"usage": {"creditRates": rates}})
    for bad in ("m", "m=1", "m=1/x", "=1/2", "m=1/-2", "m=1/2/3/4/5", "m=nan/1"):
        with pytest.raises(SystemExit):
            parser.parse_args(["--credit-rate", bad])
