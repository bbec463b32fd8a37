"""What a request costs, through the real Copilot 0.67 provider (tests/copilot_host.py): Claude's
cache writes reach Anthropic clients as `cache_creation_input_tokens`, and the usage ledger
records them with the AI credits Copilot's cloud billed (`copilot_usage.total_nano_aiu`, marked
as reported), or, where the cloud reports none, the estimate from the prices VS Code's model
objects carry. The fake cloud (tests/fake_capi/) bills by its own made-up prices
(catalogue.py), so every figure is known here.

    client -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI
"""

from __future__ import annotations

from typing import Any

import pytest
from copilot_cloud import CLAUDE, RESPONSES_MODEL, nonce
from copilot_host import copilot_fixtures
from fake_capi import FakeCapi
from plain_http import post
from usage_checks import wait_for_usage
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures()

CLAUDE_PRICES = (300, 1500, 30, 375)  # tests/fake_capi/catalogue.py, AI credits per 1M tokens
GPT5_MINI_PRICES = (25, 200, 2.5)


def _row(host: VSCodeHost, marker_model: str, count: int) -> dict[str, Any]:
    """The latest ledger row of `marker_model` once it has `count` rows."""
    root = host.base_url.removesuffix("/v1")

    def done(body: dict[str, Any]) -> bool:
        return sum(1 for r in body["recent"] if r["model"] == marker_model) >= count

    body = wait_for_usage(root, done, "?since=today&recent=200")
    rows = [r for r in body["recent"] if r["model"] == marker_model]
    assert len(rows) >= count, body["recent"]
    latest: dict[str, Any] = rows[0]
    return latest


def test_claude_cache_writes_and_copilots_credits_reach_the_client_and_the_ledger(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    body = {
        "model": CLAUDE,
        "max_tokens": 200,
        "system": "You are terse. " * 400,  # long enough for a cache breakpoint to be written
        "messages": [{"role": "user", "content": f"Say hi {nonce()}"}],
    }
    reply = post(f"{vscode.base_url}/messages", body)
    assert reply.status_code == 200, f"{reply.text}\n{vscode.diagnostics()}"
    usage = reply.json()["usage"]
    written, read = usage["cache_creation_input_tokens"], usage["cache_read_input_tokens"]
    assert written > 0, usage
    fresh, output = usage["input_tokens"], usage["output_tokens"]
    price_in, price_out, price_read, price_write = CLAUDE_PRICES
    billed = round(
        (fresh * price_in + read * price_read + written * price_write + output * price_out) * 1000
    )
    row = _row(vscode, CLAUDE, 1)
    assert row["cache_write_tokens"] == written and row["cached_tokens"] == read, row
    assert row["input_tokens"] == fresh + read + written, row
    assert row["credits_reported"] is True and row["estimated"] is False, row
    assert row["credits"] == pytest.approx(billed / 1e9), row


def test_without_copilots_figure_the_models_prices_estimate_the_credits(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """The fake's Responses API reports no credits: the ledger estimates them from the prices
    Copilot gives VS Code's model objects (`inputCost`, `outputCost`, `cacheCost`)."""
    body = {"model": RESPONSES_MODEL, "input": f"Say hi {nonce()}", "max_output_tokens": 200}
    reply = post(f"{vscode.base_url}/responses", body)
    assert reply.status_code == 200, f"{reply.text}\n{vscode.diagnostics()}"
    usage = reply.json()["usage"]
    cached = usage["input_tokens_details"]["cached_tokens"]
    price_in, price_out, price_read = GPT5_MINI_PRICES
    expected = (
        (usage["input_tokens"] - cached) * price_in
        + cached * price_read
        + usage["output_tokens"] * price_out
    ) / 1e6
    row = _row(vscode, RESPONSES_MODEL, 1)
    assert row["credits_reported"] is False, row
    assert row["credits"] == pytest.approx(expected, abs=1e-9), row
