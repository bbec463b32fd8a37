"""The usage page (`GET /usage`) in a real headless Chromium against a real `serve --usage-db`.

Requests come from real SDKs (openai, anthropic) and plain HTTP, so the ledger holds several
clients and models; the page must show exactly what `GET /v1/usage` says (totals of today and
of 30 days, the client and model tables, one chart bar per day with tokens, the recent
requests), pick up a new request by itself without a reload, show names that hold markup as
text, and, with `--api-key`, read the key from the URL fragment (never sent to the server) and
explain a 401. A screenshot of each page goes to the test's folder (printed).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

import aiohttp
from anthropic import AsyncAnthropic
from conftest import BridgeServer, running_bridge_server
from devtools_browser import Page, chromium_page
from openai import AsyncOpenAI
from test_usage_tool_calls import ledger_with_calls, tool_call

from bridge.usage.queries import COUNTS

# A requested model name and a User-Agent that are markup: the page must show them as text.
MARKUP_MODEL = '<img src=x onerror="document.body.dataset.pwned=1">'
MARKUP_AGENT = "<b id=ua-markup>agent</b>"
KEY = "page-test-key-4b1d"

# What the page shows, as the test reads it (an expression).
SNAPSHOT = (Path(__file__).parent / "usage_page_snapshot.js").read_text(encoding="utf-8")


def number(text: str) -> int:
    """A count as the page shows it (`1,234`) back as an int."""
    digits = re.sub(r"\D", "", text)
    assert digits, f"no number in {text!r}"
    return int(digits)


def read_usage(server: BridgeServer, query: str, key: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = urllib.request.Request(f"{server.base_url}/usage?{query}", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        body: dict[str, Any] = json.loads(response.read())
    return body


async def ledger_holds(server: BridgeServer, requests: int, key: str | None = None) -> None:
    """Waits until the ledger's writer thread has written `requests` rows."""
    for _ in range(200):
        body = await asyncio.to_thread(read_usage, server, "recent=0", key)
        if body["totals"]["requests"] >= requests:
            assert body["totals"]["requests"] == requests, body["totals"]
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the ledger never held {requests} requests")


async def make_requests(server: BridgeServer, key: str) -> int:
    """Three clients, three requested models; the output tokens the clients were told of."""
    openai = AsyncOpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=30)
    answer = await openai.responses.create(model="sim-echo", input="Hello from the openai SDK")
    assert answer.usage is not None
    output = answer.usage.output_tokens
    await openai.close()
    anthropic = AsyncAnthropic(base_url=server.root_url, api_key=key, max_retries=0, timeout=30)
    message = await anthropic.messages.create(
        model="sim-reasoning",
        max_tokens=200,
        messages=[{"role": "user", "content": "Hello from the anthropic SDK"}],
    )
    output += message.usage.output_tokens
    await anthropic.close()
    headers = {"User-Agent": MARKUP_AGENT, "Authorization": f"Bearer {key}"}
    body = {"model": MARKUP_MODEL, "input": "Hello over plain HTTP"}
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.base_url}/responses", json=body, headers=headers) as reply,
    ):
        assert reply.status == 200, await reply.text()
        output += int((await reply.json())["usage"]["output_tokens"])
    return output


def credits_text(counts: dict[str, Any]) -> str:
    """The page's AI credits: the known sum, "+?" when some requests are of unknown price."""
    return f"{counts['credits']:.2f}" + ("+?" if counts["credits_unknown"] else "")


def check_totals(shown: dict[str, str], totals: dict[str, Any]) -> None:
    for name in COUNTS:
        assert number(shown[name]) == totals[name], (name, shown, totals)
    assert shown["credits"] == credits_text(totals), (shown, totals)
    assert shown["cache_hit_ratio"] == f"{100 * totals['cache_hit_ratio']:.1f} %"
    for name in ("first_token_ms_p50", "first_token_ms_p95"):
        assert number(shown[name]) == math.floor(totals[name] + 0.5), (name, shown, totals)


def check_groups(rows: list[dict[str, str]], groups: list[dict[str, Any]], key: str) -> None:
    assert [row[key] for row in rows] == [group[key] for group in groups]
    for row, group in zip(rows, groups, strict=True):
        for name in COUNTS:
            assert number(row[name]) == group[name], (key, name, row, group)
        assert row["credits"] == credits_text(group), (key, row, group)


def check_page(snap: dict[str, Any], month: dict[str, Any], today: dict[str, Any]) -> None:
    """Every number the page shows is the one /v1/usage gives."""
    assert not snap["notice"], snap["notice"]
    check_totals(snap["month"], month["totals"])
    check_totals(snap["today"], today["totals"])
    check_groups(snap["by_client"], month["by_client"], "client")
    check_groups(snap["by_model"], month["by_model"], "model")
    # One bar per day that has data, its parts in proportion to that day's tokens.
    days = [row for row in month["by_day"] if row["requests"]]
    assert [bar["day"] for bar in snap["days"]] == [row["day"] for row in days]
    peak = max(row["input_tokens"] + row["output_tokens"] for row in days)
    assert snap["chart_peak"] == peak
    tallest = max(sum(bar["heights"].values()) for bar in snap["days"])
    for bar, row in zip(snap["days"], days, strict=True):
        unit = tallest / peak
        expected = {
            "cached": row["cached_tokens"],
            "input": row["input_tokens"] - row["cached_tokens"],
            "output": row["output_tokens"],
        }
        for part, tokens in expected.items():
            assert abs(bar["heights"][part] - tokens * unit) < 0.01, (part, bar, row)
        assert f"{row['input_tokens']:,} input" in bar["title"], bar["title"]
    # The recent requests, newest first, metadata only.
    recent = month["recent"]
    assert len(snap["recent"]) == len(recent)
    for shown, row in zip(snap["recent"], recent, strict=True):
        assert shown["client"] == row["client"] and shown["dialect"] == row["dialect"]
        assert row["model"] in shown["model"] and row["requested_model"] in shown["model"]
        for name in ("input_tokens", "cached_tokens", "output_tokens"):
            assert number(shown[name]) == row[name], (name, shown, row)
        assert shown["status"].startswith(str(row["status"]))


async def page_matches(page: Page, server: BridgeServer, key: str | None) -> dict[str, Any]:
    """The page after its next refresh, checked against /v1/usage read at the same time."""
    before = await page.evaluate("document.body.dataset.updated || ''")
    await page.wait_for(f"(document.body.dataset.updated || '') !== {json.dumps(before)}")
    snap: dict[str, Any] = await page.evaluate(SNAPSHOT)
    month = await asyncio.to_thread(read_usage, server, "recent=20", key)
    today = await asyncio.to_thread(
        read_usage, server, f"since={month['until']}&until={month['until']}&recent=0", key
    )
    check_page(snap, month, today)
    return snap


async def run_page(server: BridgeServer, tmp_path: Path, key: str | None) -> None:
    sent_key = key or "unused"
    async with chromium_page(tmp_path / "chromium") as page:
        url = f"{server.root_url}/usage"
        if key is not None:
            # Without the key: the page says how to give it.
            await page.goto(url)
            notice = await page.wait_for("document.getElementById('notice').textContent")
            assert "#key=" in notice and "needs its API key" in notice, notice
            url += f"#key={key}"
        await page.goto(url)
        empty = await page.wait_for("document.body.dataset.updated && " + SNAPSHOT)
        assert "No requests recorded" in empty["status"], empty
        assert "No requests yet." in empty["empty"] and not empty["days"], empty
        assert empty["tools_hidden"] and not empty["by_tool"], empty  # no tool calls: no table
        await page.screenshot(tmp_path / "usage-empty.png")

        output_tokens = await make_requests(server, sent_key)
        await ledger_holds(server, 3, key)
        await page.evaluate("window.sameDocument = true")
        snap = await page_matches(page, server, key)
        assert {row["client"] for row in snap["by_client"]} == {
            "openai-sdk",
            "anthropic-sdk",
            "other",
        }
        assert {row["model"] for row in snap["by_model"]} == {"sim-echo", "sim-reasoning"}
        assert number(snap["month"]["output_tokens"]) == output_tokens
        assert len(snap["days"]) == 1 and len(snap["recent"]) == 3
        # Markup from a client is text on the page, never elements.
        assert any(MARKUP_MODEL in row["model"] for row in snap["recent"]), snap["recent"]
        assert snap["injected"] == 0 and not snap["pwned"]

        # Another request: the page shows it by itself, in the same document.
        openai = AsyncOpenAI(base_url=server.base_url, api_key=sent_key, max_retries=0)
        stream = await openai.responses.create(model="sim-echo", input="Once more", stream=True)
        async for _ in stream:
            pass
        await openai.close()
        await ledger_holds(server, 4, key)
        snap = await page.wait_for(
            f"(() => {{ const s = {SNAPSHOT}; return s.recent.length === 4 && s; }})()"
        )
        assert await page.evaluate("window.sameDocument === true"), "the page was reloaded"
        snap = await page_matches(page, server, key)
        assert number(snap["today"]["requests"]) == 4
        assert snap["recent"][0]["flags"] == "streamed", snap["recent"][0]
        assert page.problems == [], page.problems
        shot = await page.screenshot(tmp_path / "usage.png")
        print(f"usage page screenshot: {shot}")


def serve_args(tmp_path: Path) -> list[str]:
    # Unknown names (the markup one) are answered by sim-echo, and recorded as requested.
    return ["--usage-db", str(tmp_path / "usage.db"), "--default-model", "sim-echo"]


async def test_usage_page_shows_the_ledger_live(tmp_path: Path) -> None:
    with running_bridge_server(*serve_args(tmp_path)) as server:
        await run_page(server, tmp_path, key=None)


async def test_usage_page_with_an_api_key_in_the_fragment(tmp_path: Path) -> None:
    with running_bridge_server(*serve_args(tmp_path), "--api-key", KEY) as server:
        await run_page(server, tmp_path, key=KEY)
        # The page itself needs no key and carries none; the key never reached the log.
        with urllib.request.urlopen(f"{server.root_url}/usage", timeout=10) as response:
            html = response.read().decode()
            policy = response.headers["Content-Security-Policy"]
        assert KEY not in html and "default-src 'none'" in policy and "connect-src 'self'" in policy
        assert KEY not in server.stderr_text()


# The `budgets` array as GET /v1/usage documents it (docs/usage.md); the budgets
# themselves come from their own part of issue 29, so here the browser adds them to the real
# server's body on its way to the page, to check how the page shows each state.
BUDGETS = [
    {"scope": "all", "name": None, "period": "day", "limit": 1000, "used": 500,
     "resets_at": "2026-11-27T00:00:00+00:00", "state": "ok"},
    {"scope": "client", "name": "<b>claude-code</b>", "period": "day", "limit": 1000,
     "used": 850, "resets_at": "2026-11-27T00:00:00+00:00", "state": "warning"},
    {"scope": "model", "name": "sim-echo", "period": "month", "limit": 1000, "used": 1200,
     "resets_at": "2026-12-01T00:00:00+00:00", "state": "exceeded"},
]  # fmt: skip

BUDGET_SNAPSHOT = """[...document.querySelectorAll('#budgets .budget')].map((row) => ({
  state: row.dataset.state, text: row.textContent,
  fill: Number(row.querySelector('rect.fill').getAttribute('width')),
  color: getComputedStyle(row.querySelector('rect.fill')).fill,
}))"""


async def test_usage_page_shows_budgets(tmp_path: Path) -> None:
    with running_bridge_server(*serve_args(tmp_path)) as server:
        async with chromium_page(tmp_path / "chromium") as page:
            await page.goto(f"{server.root_url}/usage")
            await page.wait_for("document.body.dataset.updated")
            assert await page.evaluate("document.getElementById('budgets').hidden")
            await page.edit_json_responses(
                "*/v1/usage?*", lambda body: {**body, "budgets": BUDGETS}
            )
            rows = await page.wait_for(
                f"(() => {{ const r = {BUDGET_SNAPSHOT}; return r.length && r; }})()"
            )
            assert [row["state"] for row in rows] == ["ok", "warning", "exceeded"]
            assert [row["fill"] for row in rows] == [50, 85, 100]
            assert "500 / 1,000 tokens (50.0 %) OK" in rows[0]["text"]
            assert "client <b>claude-code</b>, per day" in rows[1]["text"]
            assert "Warning: over 80 %" in rows[1]["text"]
            assert "model sim-echo, per month" in rows[2]["text"] and "Exceeded" in rows[2]["text"]
            assert len({row["color"] for row in rows}) == 3, rows  # a colour per state
            assert await page.evaluate("document.querySelectorAll('b').length") == 0
            assert page.problems == [], page.problems
            print(f"usage page screenshot: {await page.screenshot(tmp_path / 'usage-budgets.png')}")


async def test_usage_page_shows_editor_tools(tmp_path: Path) -> None:
    """Tool calls the MCP server recorded (written here through the real ledger before `serve`
    starts on the file): the "Editor tools" table shows GET /v1/usage's `tools`, a tool name
    that is markup as text."""
    db = tmp_path / "usage.db"
    today = date.today()
    calls = [tool_call(today, hour=0, tool="editor_hover", duration_ms=ms) for ms in (8, 1400)]
    calls += [tool_call(today, hour=0, tool=MARKUP_MODEL, duration_ms=3.0, outcome="unknown")]
    calls += [tool_call(today, hour=0, tool="editor_hover", duration_ms=9.0, outcome="timeout")]
    ledger_with_calls(db, calls)
    with running_bridge_server("--usage-db", str(db)) as server:
        tools = (await asyncio.to_thread(read_usage, server, "recent=0"))["tools"]
        assert (tools["calls"], tools["errors"]) == (4, 2)
        async with chromium_page(tmp_path / "chromium") as page:
            await page.goto(f"{server.root_url}/usage")
            snap = await page.wait_for(f"document.body.dataset.updated && {SNAPSHOT}")
            assert not snap["tools_hidden"], snap
            rows = snap["by_tool"]
            assert [row["tool"] for row in rows] == ["editor_hover", MARKUP_MODEL]
            for row, expected in zip(rows, tools["by_tool"], strict=True):
                assert number(row["calls"]) == expected["calls"]
                assert number(row["errors"]) == expected["errors"]
                assert number(row["p50_ms"]) == math.floor(expected["p50_ms"] + 0.5)
            assert rows[0]["p50_ms"] == "9 ms" and number(rows[0]["errors"]) == 1
            assert snap["injected"] == 0 and not snap["pwned"]
            assert page.problems == [], page.problems
            print(f"usage page screenshot: {await page.screenshot(tmp_path / 'usage-tools.png')}")


async def test_usage_page_says_when_the_ledger_is_off(tmp_path: Path) -> None:
    with running_bridge_server("--usage-db", "none") as server:
        async with chromium_page(tmp_path / "chromium") as page:
            await page.goto(f"{server.root_url}/usage")
            notice = await page.wait_for("document.getElementById('notice').textContent")
            assert "The usage ledger is off" in notice and "--usage-db none" in notice, notice
            status = await page.evaluate("document.getElementById('status').textContent")
            assert status == "Not updated (HTTP 404): see below.", status


async def test_usage_page_shows_real_budgets(tmp_path: Path) -> None:
    """Budgets set on `serve`: after one request the daily budget is spent, the per-client one
    past 80 % and the monthly one fine; the page shows each as GET /v1/usage states it."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        # The sim model's usage for this request, learnt first from a bridge with no budget.
        with running_bridge_server("--usage-db", str(tmp_path / "probe.db")) as probe:
            tokens = await chat_tokens(http, probe)
        args = [
            "--usage-db", str(tmp_path / "usage.db"),
            "--daily-token-budget", str(tokens),  # spent by the one request
            "--token-budget", f"other={math.ceil(tokens / 0.9)}/day",  # 90 % used
            "--monthly-token-budget", str(tokens * 10),  # 10 % used
        ]  # fmt: skip
        with running_bridge_server(*args) as server:
            assert await chat_tokens(http, server) == tokens
            await ledger_holds(server, 1)
            budgets = (await asyncio.to_thread(read_usage, server, "recent=0"))["budgets"]
            states = {(b["scope"], b["period"]): b["state"] for b in budgets}
            assert states == {
                ("all", "day"): "exceeded",
                ("client", "day"): "warning",
                ("all", "month"): "ok",
            }, budgets
            async with chromium_page(tmp_path / "chromium") as page:
                await page.goto(f"{server.root_url}/usage")
                rows = await page.wait_for(
                    f"(() => {{ const r = {BUDGET_SNAPSHOT}; return r.length === 3 && r; }})()"
                )
                shown = sorted(row["state"] for row in rows)
                assert shown == sorted(b["state"] for b in budgets), rows
                spent = next(row for row in rows if row["state"] == "exceeded")
                assert f"{tokens:,} / {tokens:,} tokens" in spent["text"], spent
                assert page.problems == [], page.problems
                shot = await page.screenshot(tmp_path / "usage-real-budgets.png")
                print(f"usage page screenshot: {shot}")


async def chat_tokens(http: aiohttp.ClientSession, server: BridgeServer) -> int:
    """One Chat Completions request (client `other`); input + output tokens it was told of."""
    body = {"model": "sim-echo", "messages": [{"role": "user", "content": "Count me, please."}]}
    async with http.post(f"{server.base_url}/chat/completions", json=body) as reply:
        assert reply.status == 200, await reply.text()
        usage = (await reply.json())["usage"]
    return int(usage["prompt_tokens"] + usage["completion_tokens"])
