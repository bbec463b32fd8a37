"""Token budgets and the fallback model with the real SDKs (openai, anthropic, google-genai)
against a real `maestro-bridge serve`: a spent budget is each SDK's rate-limit error carrying
`budget_exceeded` (or its dialect's equivalent), and not retried by the SDKs that honour
`x-should-retry`; a rate-limited model is answered by the fallback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest
from budget_ledger import rows, seed
from conftest import BridgeServer, running_bridge_server
from gemini_http import make_client
from google.genai import errors as genai_errors
from test_e2e_copilot_errors import FAILURES


@pytest.fixture(scope="module")
def spent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BridgeServer, Path]]:
    """A bridge whose daily budget is spent."""
    db = tmp_path_factory.mktemp("budget-sdks") / "usage.sqlite3"
    seed(db, 100)
    with running_bridge_server("--usage-db", str(db), "--daily-token-budget", "100") as server:
        yield server, db


def test_openai_sdk_gets_a_rate_limit_error_with_budget_exceeded(
    spent: tuple[BridgeServer, Path],
) -> None:
    server, db = spent
    refused = server.stderr_text().count("Refused a request")
    # The SDK's own retries are on: `x-should-retry: false` keeps it from asking again.
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=2, timeout=30)
    with pytest.raises(openai.RateLimitError) as responses:
        client.responses.create(model="sim-echo", input="Say hi")
    with pytest.raises(openai.RateLimitError) as completions:
        client.chat.completions.create(
            model="sim-echo", messages=[{"role": "user", "content": "Say hi"}], stream=True
        )
    for caught in (responses.value, completions.value):
        assert caught.code == "budget_exceeded", caught.body
        assert "daily token budget" in caught.message
        assert int(caught.response.headers["retry-after"]) > 0
    assert len(rows(db)) == 1
    assert server.stderr_text().count("Refused a request") == refused + 2  # no retry


def test_anthropic_sdk_gets_a_rate_limit_error(spent: tuple[BridgeServer, Path]) -> None:
    server, db = spent
    refused = server.stderr_text().count("Refused a request")
    client = anthropic.Anthropic(base_url=server.root_url, api_key="unused", max_retries=2)
    with pytest.raises(anthropic.RateLimitError) as caught:
        client.messages.create(
            model="sim-echo", max_tokens=100, messages=[{"role": "user", "content": "Say hi"}]
        )
    assert caught.value.body["error"]["type"] == "rate_limit_error"  # type: ignore[index]
    assert "daily token budget" in caught.value.message
    assert int(caught.value.response.headers["retry-after"]) > 0
    assert len(rows(db)) == 1
    assert server.stderr_text().count("Refused a request") == refused + 1  # no retry


def test_google_genai_sdk_gets_resource_exhausted(spent: tuple[BridgeServer, Path]) -> None:
    server, db = spent
    with make_client(server) as client, pytest.raises(genai_errors.ClientError) as caught:
        client.models.generate_content(model="sim-echo", contents="Say hi")
    assert caught.value.code == 429 and caught.value.status == "RESOURCE_EXHAUSTED"
    assert "daily token budget" in (caught.value.message or "")
    assert len(rows(db)) == 1


@pytest.fixture(scope="module")
def falling_back(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    name, code, message = FAILURES["RATE"]
    error = {"type": "error", "code": code, "name": name, "message": message}
    rules = [
        {"match": f"^LIMITED_{sdk}$", "reply": [error], "times": 1}
        for sdk in ("openai", "anthropic", "genai")
    ]
    rules.append({"match": "^LIMITED_", "reply": [{"type": "request"}]})
    folder = tmp_path_factory.mktemp("fallback-sdks")
    (folder / "script.json").write_text(json.dumps({"rules": rules}), encoding="utf-8")
    args = ["--script", str(folder / "script.json"), "--fallback-model", "sim-gemini"]
    args += ["--usage-db", str(folder / "usage.sqlite3")]
    with running_bridge_server(*args) as server:
        yield server


def test_each_sdk_is_answered_by_the_fallback_after_a_rate_limit(
    falling_back: BridgeServer,
) -> None:
    server = falling_back
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    answer = client.responses.create(model="sim-echo", input="LIMITED_openai")
    assert json.loads(answer.output_text)["model"] == "sim-gemini"
    assert answer.model == "sim-echo"
    claude = anthropic.Anthropic(base_url=server.root_url, api_key="unused", max_retries=0)
    message = claude.messages.create(
        model="sim-echo",
        max_tokens=4000,
        messages=[{"role": "user", "content": "LIMITED_anthropic"}],
    )
    text = "".join(block.text for block in message.content if block.type == "text")
    assert json.loads(text)["model"] == "sim-gemini"
    with make_client(server) as google:
        generated = google.models.generate_content(model="sim-echo", contents="LIMITED_genai")
    assert json.loads(generated.text or "")["model"] == "sim-gemini"
