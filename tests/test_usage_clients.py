"""Real clients against a real `serve --usage-db FILE`: the ledger's totals and its row for
each client equal the usage that client was sent, with the client's name, dialect, path and
streaming right: the openai, anthropic and google-genai Python SDKs (streamed and not), the
Responses WebSocket, and the real Claude Code and Gemini CLI (their answers read through a
recording proxy)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from anthropic import Anthropic
from claude_code_cli import claude_or_skip, run_claude
from conftest import BridgeServer, StartServer, running_bridge_server
from gemini_cli import gemini_or_skip, run_gemini
from google import genai
from google.genai import types
from openai import OpenAI
from usage_checks import (
    added,
    ledger_counts,
    recording_answers,
    sent_counts,
    wait_for_requests,
    wait_for_usage,
)

HELLO = "Hello from a client of the ledger"


@pytest.fixture(scope="module")
def ledger_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeServer]:
    db = tmp_path_factory.mktemp("ledger") / "usage.sqlite3"
    with running_bridge_server("--usage-db", str(db)) as server:
        yield server


def client_rows(server: BridgeServer, client: str, count: int) -> dict[str, Any]:
    """The summary once `client` has `count` rows: its group row and its recent rows."""
    body = wait_for_usage(
        server.root_url,
        lambda b: any(r["client"] == client and r["requests"] >= count for r in b["by_client"]),
    )
    group = next(r for r in body["by_client"] if r["client"] == client)
    assert group["requests"] == count, body["recent"]
    assert group["errors"] == 0
    recent = [r for r in body["recent"] if r["client"] == client]
    return {"group": group, "recent": recent, "totals": body["totals"]}


def test_openai_sdk_chat_and_responses(ledger_server: BridgeServer) -> None:
    sdk = OpenAI(base_url=ledger_server.base_url, api_key="unused", max_retries=0, timeout=30)
    sent = []
    done = sdk.chat.completions.create(
        model="sim-echo", messages=[{"role": "user", "content": HELLO}]
    )
    assert done.usage is not None
    sent.append(sent_counts("chat", done.usage.model_dump()))
    chunks = list(
        sdk.chat.completions.create(
            model="sim-reasoning",
            messages=[{"role": "user", "content": HELLO + " (streamed)"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert chunks[-1].usage is not None
    sent.append(sent_counts("chat", chunks[-1].usage.model_dump()))
    response = sdk.responses.create(model="sim-echo", input=HELLO)
    assert response.usage is not None
    sent.append(sent_counts("responses", response.usage.model_dump()))
    events = list(
        sdk.responses.create(
            model="sim-reasoning", input=HELLO, stream=True, reasoning={"effort": "low"}
        )
    )
    final = events[-1].response  # type: ignore[union-attr]
    assert final.usage is not None
    sent.append(sent_counts("responses", final.usage.model_dump()))
    assert sum(s["reasoning_tokens"] for s in sent) > 0  # sim-reasoning thinks aloud

    rows = client_rows(ledger_server, "openai-sdk", 4)
    assert ledger_counts(rows["group"]) == added(sent)
    seen = sorted((r["dialect"], r["path"], r["streamed"], r["model"]) for r in rows["recent"])
    assert seen == [
        ("chat", "/v1/chat/completions", False, "sim-echo"),
        ("chat", "/v1/chat/completions", True, "sim-reasoning"),
        ("responses", "/v1/responses", False, "sim-echo"),
        ("responses", "/v1/responses", True, "sim-reasoning"),
    ]
    assert all(not r["estimated"] and not r["cancelled"] for r in rows["recent"])
    assert all(r["first_token_ms"] is not None for r in rows["recent"])


def test_anthropic_sdk(ledger_server: BridgeServer) -> None:
    sdk = Anthropic(base_url=ledger_server.root_url, api_key="unused", max_retries=0, timeout=30)
    hello: Any = [{"role": "user", "content": HELLO}]
    message = sdk.messages.create(model="sim-echo", max_tokens=200, messages=hello)
    sent = [sent_counts("anthropic", message.usage.model_dump())]
    with sdk.messages.stream(model="sim-echo", max_tokens=200, messages=hello) as stream:
        streamed = stream.get_final_message()
    sent.append(sent_counts("anthropic", streamed.usage.model_dump()))

    rows = client_rows(ledger_server, "anthropic-sdk", 2)
    assert ledger_counts(rows["group"]) == added(sent)
    seen = sorted((r["dialect"], r["path"], r["streamed"]) for r in rows["recent"])
    assert seen == [("anthropic", "/v1/messages", False), ("anthropic", "/v1/messages", True)]


def test_google_genai_sdk(ledger_server: BridgeServer) -> None:
    options = types.HttpOptions(base_url=ledger_server.root_url, timeout=30_000)
    sdk = genai.Client(api_key="unused", http_options=options)
    answer = sdk.models.generate_content(model="sim-gemini", contents=HELLO)
    assert answer.usage_metadata is not None
    sent = [
        sent_counts("gemini", answer.usage_metadata.model_dump(by_alias=True, exclude_none=True))
    ]
    chunks = list(sdk.models.generate_content_stream(model="sim-reasoning", contents=HELLO))
    last = chunks[-1].usage_metadata
    assert last is not None
    sent.append(sent_counts("gemini", last.model_dump(by_alias=True, exclude_none=True)))

    rows = client_rows(ledger_server, "google-genai-sdk", 2)
    assert ledger_counts(rows["group"]) == added(sent)
    seen = sorted((r["dialect"], r["path"], r["streamed"]) for r in rows["recent"])
    assert seen == [
        ("gemini", "/v1/models/sim-gemini:generateContent", False),  # the SDK's v1
        ("gemini", "/v1/models/sim-reasoning:streamGenerateContent", True),
    ]


async def test_responses_websocket_turns(ledger_server: BridgeServer) -> None:
    """Two turns on one connection, the second with another model: each row its own."""
    url = ledger_server.base_url.replace("http://", "ws://") + "/responses"
    sent = []
    async with (
        aiohttp.ClientSession(headers={"User-Agent": "codex_cli_rs/0.169.0 (Debian 12)"}) as s,
        s.ws_connect(url) as ws,
    ):
        previous = None
        for model in ("sim-echo", "sim-reasoning"):
            frame = {"type": "response.create", "model": model, "input": HELLO}
            if previous:
                frame["previous_response_id"] = previous
            await ws.send_str(json.dumps(frame))
            while True:
                event = json.loads((await asyncio.wait_for(ws.receive(), 30)).data)
                if event["type"] == "response.completed":
                    previous = event["response"]["id"]
                    sent.append(sent_counts("responses", event["response"]["usage"]))
                    break
                assert event["type"] != "error", event

    rows = client_rows(ledger_server, "codex", 2)
    assert ledger_counts(rows["group"]) == added(sent)
    seen = sorted((r["requested_model"], r["dialect"], r["path"], r["streamed"])
                  for r in rows["recent"])  # fmt: skip
    assert seen == [
        ("sim-echo", "responses", "/v1/responses", True),
        ("sim-reasoning", "responses", "/v1/responses", True),
    ]


def test_claude_code(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    claude = claude_or_skip()
    db = tmp_path / "usage.sqlite3"
    # Without a rule the simulated model would call the first tool offered (Claude's Agent).
    rules = {"rules": [{"match": "Say hello", "reply": [{"type": "text", "text": "Hello!"}]}]}
    server = bridge_server_factory(
        "--usage-db", str(db), "--default-model", "sim-echo", script=rules
    )
    workdir = tmp_path / "work"
    workdir.mkdir()
    with recording_answers(server.root_url) as (recorder, url):
        run = run_claude(
            claude,
            url,
            "Say hello.",
            cwd=workdir,
            home=tmp_path / "home",
            output_format="json",
            timeout=60,
        )
    assert run.returncode == 0, run.report
    assert run.json_result()["result"] == "Hello!", run.report
    sent = recorder.usage_sent()
    assert sent, recorder.answers

    body = wait_for_requests(server.root_url, len(sent))
    assert [r["client"] for r in body["by_client"]] == ["claude-code"]
    assert ledger_counts(body["by_client"][0]) == added(sent)
    assert ledger_counts(body["totals"]) == added(sent)
    assert {(r["dialect"], r["path"], r["model"]) for r in body["recent"]} == {
        ("anthropic", "/v1/messages", "sim-echo")
    }
    assert all(r["requested_model"].startswith("claude-") for r in body["recent"])
    assert any(r["streamed"] for r in body["recent"])  # Claude Code streams its turns


def test_gemini_cli(bridge_server_factory: StartServer, tmp_path: Path) -> None:
    gemini = gemini_or_skip()
    db = tmp_path / "usage.sqlite3"
    rules = {"rules": [{"match": "Say hello", "reply": [{"type": "text", "text": "Hello!"}]}]}
    server = bridge_server_factory("--usage-db", str(db), script=rules)
    workdir = tmp_path / "work"
    workdir.mkdir()
    with recording_answers(server.root_url) as (recorder, url):
        run = run_gemini(
            gemini,
            url,
            "Say hello.",
            cwd=workdir,
            home=tmp_path / "home",
            model="sim-gemini",  # no router: one model asked by name
            output_format="json",
            timeout=90,
        )
    assert run.returncode == 0, run.report
    assert run.json_result()["response"] == "Hello!"
    sent = recorder.usage_sent()
    assert sent, recorder.answers

    body = wait_for_requests(server.root_url, len(sent))
    assert [r["client"] for r in body["by_client"]] == ["gemini-cli"]
    assert ledger_counts(body["totals"]) == added(sent)
    assert {(r["dialect"], r["path"], r["streamed"]) for r in body["recent"]} == {
        ("gemini", "/v1beta/models/sim-gemini:streamGenerateContent", True)
    }
    # The CLI's own account agrees: the tokens it says it spent are the ledger's.
    stats = run.json_result()["stats"]["models"]["sim-gemini"]["tokens"]
    assert stats["prompt"] == body["totals"]["input_tokens"], stats
