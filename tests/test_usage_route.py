"""`GET /v1/usage` in the bridge's own application: the span of days it reads, its errors in
the OpenAI envelope, `recent`'s bounds, the ledger turned off, and the API's key and
Host/Origin rules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from test_usage_queries import D1, D2, D3, KNOWN, ledger_with
from test_usage_tool_calls import CALLS, REQUESTS, ledger_with_calls

from bridge.app import create_app
from bridge.core.backend import ChatRequest, ModelInfo
from bridge.settings import BridgeSettings, UsageSettings


class ModelsOnly:
    """An editor that lists models and is never asked to answer (no chat here)."""

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id="sim", maxInputTokens=1000)]

    async def count_tokens(self, model: str, text: str) -> int:
        return len(text.split())

    def chat(self, request: ChatRequest) -> Any:
        raise AssertionError("GET /v1/usage never asks the model")


async def client_for(settings: BridgeSettings) -> TestClient[Any, Any]:
    client: TestClient[Any, Any] = TestClient(TestServer(create_app(ModelsOnly(), settings)))
    await client.start_server()
    return client


@pytest.fixture
async def usage_client(tmp_path: Path) -> AsyncIterator[TestClient[Any, Any]]:
    path = tmp_path / "usage.sqlite3"
    ledger_with(path, KNOWN)
    client = await client_for(BridgeSettings(usage=UsageSettings(database=str(path))))
    yield client
    await client.close()


async def get(client: TestClient[Any, Any], query: str = "", **headers: str) -> Any:
    response = await client.get(f"/v1/usage{query}", headers=headers)
    return response.status, await response.json()


async def test_span_from_the_query(usage_client: TestClient[Any, Any]) -> None:
    status, body = await get(usage_client, f"?since={D1}&until={D3}")
    assert status == 200, body
    assert body["totals"]["requests"] == 5 and len(body["recent"]) == 5
    assert set(body) == {"object", "since", "until", "totals", "by_client", "by_model",
                         "by_day", "recent", "tools", "recent_tools", "budgets"}  # fmt: skip
    status, body = await get(usage_client, f"?since={D2}&until={D2}")
    assert (body["since"], body["until"], body["totals"]["requests"]) == (str(D2), str(D2), 2)
    # `until` alone: the 30 days up to it; `since` alone: up to today.
    status, body = await get(usage_client, f"?until={D1}")
    assert body["since"] == str(D1 - timedelta(days=29)) and body["totals"]["requests"] == 2
    status, body = await get(usage_client, f"?since={D3}")
    assert body["until"] == date.today().isoformat() and body["totals"]["requests"] == 1


async def test_default_span_is_the_last_30_days(usage_client: TestClient[Any, Any]) -> None:
    status, body = await get(usage_client)
    assert status == 200
    assert body["until"] == date.today().isoformat()
    assert body["since"] == (date.today() - timedelta(days=29)).isoformat()


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("?since=yesterday", "since"),
        ("?until=2026-13-01", "until"),
        ("?since=2026-05-03&until=2026-05-01", "since"),
        ("?recent=201", "recent"),
        ("?recent=-1", "recent"),
        ("?recent=ten", "recent"),
        ("?recent=%C2%B2", "recent"),  # "²": a digit to str.isdigit, not to int()
    ],
)
async def test_bad_query_is_a_400_in_the_openai_envelope(
    usage_client: TestClient[Any, Any], query: str, param: str
) -> None:
    status, body = await get(usage_client, query)
    assert status == 400, body
    error = body["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param
    assert param in error["message"]


async def test_far_dates_read_everything(usage_client: TestClient[Any, Any]) -> None:
    status, body = await get(usage_client, "?since=0001-01-01&until=9999-12-31")
    assert status == 200, body
    assert body["totals"]["requests"] == 5


async def test_recent_bounds(usage_client: TestClient[Any, Any]) -> None:
    for recent, rows in (("0", 0), ("2", 2), ("200", 5)):
        status, body = await get(usage_client, f"?since={D1}&until={D3}&recent={recent}")
        assert status == 200 and len(body["recent"]) == rows


async def test_tool_calls_in_the_body(tmp_path: Path) -> None:
    """What the MCP server recorded (bridge/mcp/, through `app[USAGE_LEDGER]`) is read back:
    `tools` for the span, `recent_tools` bounded by `?recent=`."""
    path = tmp_path / "usage.sqlite3"
    ledger_with_calls(path, CALLS, REQUESTS)
    client = await client_for(BridgeSettings(usage=UsageSettings(database=str(path))))
    try:
        status, body = await get(client, f"?since={D1}&until={D3}&recent=2")
        assert status == 200, body
        assert body["totals"]["requests"] == 2 and len(body["recent"]) == 2
        tools = body["tools"]
        assert (tools["calls"], tools["errors"]) == (6, 2)
        assert [(t["tool"], t["calls"], t["errors"]) for t in tools["by_tool"]] == [
            ("editor_diagnostics", 3, 1),
            ("editor_hover", 2, 0),
            ("nope", 1, 1),
        ]
        assert [t["tool"] for t in body["recent_tools"]] == ["nope", "editor_hover"]
        assert set(body["recent_tools"][0]) == {
            "started", "client", "tool", "duration_ms", "outcome", "error", "result_chars",
            "truncated",
        }  # fmt: skip
        status, body = await get(client, f"?since={D2}&until={D2}&recent=0")
        assert body["tools"]["calls"] == 2 and body["recent_tools"] == []
    finally:
        await client.close()


async def test_ledger_off_is_a_clear_404(tmp_path: Path) -> None:
    client = await client_for(BridgeSettings(usage=UsageSettings(database="none")))
    try:
        status, body = await get(client)
    finally:
        await client.close()
    assert status == 404
    assert body["error"]["code"] == "usage_off"
    assert "--usage-db none" in body["error"]["message"]


async def test_same_key_and_host_origin_rules_as_the_api(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    ledger_with(path, KNOWN)
    settings = BridgeSettings(apiKey="sekrit", usage=UsageSettings(database=str(path)))
    client = await client_for(settings)
    key = {"Authorization": "Bearer sekrit"}
    try:
        assert (await client.get("/v1/usage")).status == 401
        assert (await client.get("/v1/usage", headers={"Authorization": "Bearer no"})).status == 401
        assert (await client.get("/v1/usage", headers=key)).status == 200
        assert (
            await client.get("/v1/usage", headers={**key, "Host": "evil.example"})
        ).status == 403
        foreign = {**key, "Origin": "https://evil.example"}
        assert (await client.get("/v1/usage", headers=foreign)).status == 403
        # The models route answers the same way: the rules are the API's.
        assert (await client.get("/v1/models", headers=foreign)).status == 403
    finally:
        await client.close()
