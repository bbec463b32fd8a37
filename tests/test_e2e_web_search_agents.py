"""Issue 44: the agents' hosted web search tools through the bridge, offline, with the real
CLIs and the simulated model (scripted: it answers from the results only once they reached it,
tests/web_search_script.py), on each search service: SearXNG, Brave and Tavily (a FAKE service
in their shapes, tests/fake_search.py) and an editor tool (the headless editor's `sim_echo`).

- Claude Code: the model loads WebSearch with ToolSearch and calls it; Claude Code asks the API
  to run its hosted `web_search_20250305` tool; the bridge answers with `server_tool_use`,
  `web_search_tool_result` and cited text; Claude Code shows those results and their sources
  to its model, which answers with them.
- Codex with web search on (`web_search = "live"`): its `web_search` tool is run by the bridge,
  Codex shows the search (a `web_search` item) and the answer citing the result.
- Gemini CLI: its `google_web_search` tool asks the API for `googleSearch` with the query as the
  prompt; the bridge answers with `groundingMetadata`, from which Gemini CLI places its citation
  marks and lists the sources."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_code_cli import claude_or_skip, run_claude
from conftest import BridgeServer, StartServer
from fake_search import PAGE_TITLE, PAGE_URL, FakeSearch, fake_search
from gemini_cli import YOLO, gemini_or_skip, run_gemini
from recording_proxy import RecordingProxy, recording_proxy
from test_e2e_codex import codex_or_skip, run_codex
from web_search_script import (
    ANSWER,
    BACKENDS,
    backend_args,
    query_for,
    search_rules,
    searched,
)

FINAL = f"Found it: [{PAGE_TITLE}]({PAGE_URL})"
NOTHING = {"match": ".", "reply": [{"type": "text", "text": "Nothing to do."}]}


@pytest.fixture
def fake() -> Iterator[FakeSearch]:
    with fake_search() as service:
        yield service


def _bridge(
    start: StartServer, backend: str, fake: FakeSearch, rules: list[dict[str, Any]], *args: str
) -> BridgeServer:
    flags, env = backend_args(backend, fake)
    return start(*args, *flags, script={"rules": rules}, env=env)


def _check_searched(backend: str, fake: FakeSearch) -> None:
    # The HTTP services were asked the model's query once; the editor tool leaves them alone.
    assert searched(fake) == ([] if backend == "tool" else [query_for(backend)])


def _claude_rules(query: str) -> list[dict[str, Any]]:
    web_search = {"type": "tool_call", "name": "WebSearch", "arguments": {"query": query}}
    load = {"query": "select:WebSearch", "max_results": 1}
    return [
        # Claude Code's WebSearch result, with the links it read from the result blocks.
        {"match": "Web search results for query", "reply": [{"type": "text", "text": FINAL}]},
        {
            "match": "(?i)find the guide",
            "reply": [{"type": "tool_call", "name": "ToolSearch", "arguments": load}],
        },
        {"match": "Tool loaded", "reply": [web_search]},
        # The request WebSearch makes with the hosted tool: the model searches.
        {
            "match": "Perform a web search for the query",
            "reply": [{"type": "tool_call", "name": "web_search", "arguments": {"query": query}}],
        },
        *search_rules(query=query),
        NOTHING,
    ]


def _tool_results(proxy: RecordingProxy) -> list[str]:
    return [
        block["content"] if isinstance(block["content"], str) else str(block["content"])
        for body in proxy.messages_bodies()
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_claude_code_web_search_shows_results_and_sources(
    bridge_server_factory: StartServer, tmp_path: Path, fake: FakeSearch, backend: str
) -> None:
    claude = claude_or_skip()
    workdir = tmp_path / "work"
    workdir.mkdir()
    query = query_for(backend)
    server = _bridge(
        bridge_server_factory, backend, fake, _claude_rules(query), "--default-model", "sim-echo"
    )
    with recording_proxy(server.root_url) as proxy:
        run = run_claude(
            claude,
            proxy.base_url,
            "Please find the guide to Maestro Bridge's web search.",
            cwd=workdir,
            home=tmp_path / "home",
            timeout=90,
            extra_args=("--allowedTools", "WebSearch"),
        )
    assert run.returncode == 0, run.report
    assert FINAL in run.stdout, run.report
    hosted = [
        body
        for body in proxy.messages_bodies()
        if any(t.get("type") == "web_search_20250305" for t in body.get("tools", []))
    ]
    assert len(hosted) == 1, run.report  # WebSearch asked for its hosted tool once
    _check_searched(backend, fake)
    # What WebSearch gave its model: the results' links (from `web_search_tool_result`) and
    # the cited answer text.
    shown = next(text for text in _tool_results(proxy) if "Web search results" in text)
    assert f'"url":"{PAGE_URL}"' in shown and PAGE_TITLE in shown, shown
    assert ANSWER in shown, shown


class _Proxied:
    """A bridge as Codex's run reaches it: through the recording proxy."""

    def __init__(self, base_url: str, server: BridgeServer) -> None:
        self.base_url = base_url
        self._server = server

    def stderr_text(self) -> str:
        return self._server.stderr_text()


@pytest.mark.parametrize("backend", BACKENDS)
def test_codex_with_web_search_on_cites_a_source(
    bridge_server_factory: StartServer, tmp_path: Path, fake: FakeSearch, backend: str
) -> None:
    codex = codex_or_skip()
    query = query_for(backend)
    rules = [*search_rules(query=query), NOTHING]
    server = _bridge(
        bridge_server_factory, backend, fake, rules, "--model-alias", "gpt-5.5=sim-echo"
    )
    with recording_proxy(server.root_url) as proxy:
        run = run_codex(
            codex,
            _Proxied(proxy.base_url + "/v1", server),
            tmp_path,
            "gpt-5.5",
            "Please search the web for the guide.",
            extra_flags=("--json", "-c", 'web_search="live"'),
        )
        bodies = proxy.bodies("/v1/responses")
    assert any({"type": "web_search"}.items() <= t.items() for t in bodies[0]["tools"]), bodies
    events = [json.loads(line) for line in run.result.stdout.splitlines() if line.startswith("{")]
    shown = [
        e["item"]
        for e in events
        if e["type"] == "item.completed" and e["item"]["type"] == "web_search"
    ]
    assert [item["query"] for item in shown] == [query], run.report
    _check_searched(backend, fake)
    assert run.last_message == ANSWER, run.report  # [1]: the result it read


GEMINI_FINAL = f"Grounded: see {PAGE_URL}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemini_cli_google_web_search_answers_with_grounding(
    bridge_server_factory: StartServer, tmp_path: Path, fake: FakeSearch, backend: str
) -> None:
    query = query_for(backend)
    router = {"complexity_reasoning": "One short answer.", "complexity_score": 10}
    call = {"type": "tool_call", "name": "google_web_search", "arguments": {"query": query}}
    search = {"type": "tool_call", "name": "web_search", "arguments": {"query": query}}
    rules: list[dict[str, Any]] = [
        # Gemini CLI's router first, then its model calls google_web_search.
        {
            "match": "find the guide",
            "reply": [{"type": "text", "text": json.dumps(router)}],
            "times": 1,
        },
        {"match": "find the guide", "reply": [call], "times": 1},
        # google_web_search asks for `googleSearch` with the query alone as the prompt.
        {"match": f"^{re.escape(query)}$", "reply": [search]},
        # The tool's result: the grounded text, with the CLI's own [1] and its sources.
        {"match": "Sources:", "reply": [{"type": "text", "text": GEMINI_FINAL}]},
        *search_rules(query=query),
        NOTHING,
    ]
    workdir = tmp_path / "work"
    workdir.mkdir()
    server = _bridge(bridge_server_factory, backend, fake, rules, "--default-model", "sim-echo")
    with recording_proxy(server.root_url) as proxy:
        run = run_gemini(
            gemini_or_skip(),
            proxy.base_url,
            "Please find the guide.",
            cwd=workdir,
            home=tmp_path / "home",
            output_format="json",
            approval_mode=YOLO,
            timeout=90,
        )
        recorded = proxy.recorded()
    assert run.returncode == 0, run.report
    result = run.json_result()
    assert result["response"] == GEMINI_FINAL, run.report
    tool = result["stats"]["tools"]["byName"]["google_web_search"]
    assert (tool["count"], tool["success"]) == (1, 1), run.report
    _check_searched(backend, fake)
    # What google_web_search gave its model: the text with the CLI's marks placed from the
    # groundingSupports, and the sources from the groundingChunks.
    outputs = [
        part["functionResponse"]["response"]["output"]
        for r in recorded
        for content in (r["body"] or {}).get("contents", [])
        for part in content["parts"]
        if part.get("functionResponse", {}).get("name") == "google_web_search"
    ]
    assert outputs, recorded
    assert "The bridge runs the hosted search tools itself[1]." in outputs[-1], outputs
    assert f"[1] {PAGE_TITLE} ({PAGE_URL})" in outputs[-1], outputs
