"""What real agent sessions are billed through the real Copilot 0.67 provider: Claude Code on
Claude, Codex on GPT-5 and Gemini CLI on Gemini, each a session of 8 model turns (7 shell
commands the agent runs, then the answer), first on empty prompt caches (cold), then a next
session of the same agent on what the first left (warm). The fake cloud (tests/fake_capi/)
caches and bills as Anthropic and OpenAI do; its bill per turn is what the table in
docs/benchmarks.md ("Credits of agent sessions") reports. Loose bounds, the issue's targets:
after the first turn of a session, at least 97% of the input is read from the cache on the
Claude and GPT families; a warm session's first turn reads the tools and Copilot's own system
prompt from the cache.

    agent -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from claude_code_cli import claude_or_skip, run_claude
from copilot_host import copilot_fixtures
from credit_tools import DEFERRED, agent_bodies, has_turn_note, print_tool_costs, tool_name
from fake_capi import FakeCapi
from fake_capi.sse import Usage
from gemini_cli import YOLO, gemini_or_skip, run_gemini
from test_e2e_codex import codex_or_skip, run_codex
from test_e2e_copilot_agents import CODEX_MODEL, _HostAsServer
from vscode_host import VSCodeHost

from bridge.anthropic.convert import BILLING_HEADER
from bridge.core.savings_off import off
from headless_editor.script import Script

pytestmark = pytest.mark.timeout(900)

capi, vscode = copilot_fixtures({"maestroBridge.modelAliases": {CODEX_MODEL: "gpt-5-mini"}})

STEPS = 7  # shell commands; the 8th model turn answers


def session_rules(tag: str, tool: str, argument: str) -> list[dict[str, Any]]:
    """Turn 1 (the prompt) runs `echo TAG-s1`; turn i+1 (that output) runs the next; after
    the 7th, the answer."""
    rules: list[dict[str, Any]] = []
    for step in range(1, STEPS + 1):
        match = f"{tag} steps" if step == 1 else rf"{tag}-s{step - 1}\b"
        call = {"type": "tool_call", "name": tool, "arguments": {argument: f"echo {tag}-s{step}"}}
        rules.append(
            {"match": match, "times": 1, "reply": [{"type": "text", "text": "Next."}, call]}
        )
    rules.append(
        {"match": rf"{tag}-s{STEPS}\b", "times": 1, "reply": [{"type": "text", "text": "Done."}]}
    )
    return rules


class Bill(NamedTuple):
    turns: int
    full_price: int  # input neither read from nor written to the cache
    read: int
    written: int
    output: int
    reasoning: int
    later_read_share: float  # of the input after the first turn, the part read from cache
    first_read: int  # the first turn's cache reads


def bill(billed: list[tuple[str, Usage, int]], model: str) -> Bill:
    turns = [u for m, u, tools in billed if m == model and tools > 0]  # the agent's turns
    assert turns, billed
    later = turns[1:]
    later_input = sum(u.prompt for u in later)
    return Bill(
        len(turns),
        sum(u.prompt - u.cached - u.written for u in turns),
        sum(u.cached for u in turns),
        sum(u.written for u in turns),
        sum(u.output for u in turns),
        sum(u.reasoning for u in turns),
        sum(u.cached for u in later) / later_input if later_input else 0.0,
        turns[0].cached,
    )


def two_sessions(
    capi: FakeCapi, model: str, run: Callable[[str, Path], None], tool: str, argument: str
) -> tuple[Bill, Bill]:
    """A cold session, then a warm one of the same agent (the caches kept in between)."""
    capi.clear()  # empty caches: the cold session
    bills = []
    for tag in ("cold", "warm"):
        capi.script = Script.model_validate({"rules": session_rules(tag, tool, argument)})
        start, sent = len(capi.billed), len(capi.requests)
        run(tag, Path(tag))
        bills.append(bill(capi.billed[start:], model))
        bodies = agent_bodies(capi, model, sent)
        # The bridge adds nothing of its own to these sessions' requests (no answer notes), and
        # keeps Claude Code's billing line and not-yet-loaded deferred tools from the cloud.
        assert not any(has_turn_note(b) for b in bodies), model
        # (Unless bench/credit_sessions.py switched those savings off for this run.)
        header = any(BILLING_HEADER in json.dumps(b) for b in bodies)
        assert header == (model.startswith("claude") and off("billing_header")), model
        deferred = any(DEFERRED in (tool_name(t) for t in b["tools"]) for b in bodies)
        assert deferred == (model.startswith("claude") and off("deferred_tools")), model
        if tag == "cold":
            print_tool_costs(model, bodies[0])
        turns = [(u.prompt, u.cached, u.written) for m, u, t in capi.billed[start:] if m == model]
        print(f"\n{model} {tag} turns (prompt, read, written): {turns}")
    capi.script = None
    for tag, session in zip(("cold", "warm"), bills, strict=True):
        # One line per session for bench/credit_sessions.py's table.
        print(f"\nCREDIT-SESSION {model} {tag} {' '.join(str(v) for v in session)}")
    return bills[0], bills[1]


def test_claude_code_sessions(vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path) -> None:
    def run(tag: str, _: Path) -> None:
        workdir = tmp_path / "work"  # one repository, two sessions
        workdir.mkdir(exist_ok=True)
        result = run_claude(
            claude_or_skip(),
            vscode.base_url.removesuffix("/v1"),
            f"Please run the {tag} steps.",
            cwd=workdir,
            home=tmp_path / "home",  # one user: the second session of the same agent
            model="claude-sonnet-4.5",
            timeout=300,
        )
        assert result.returncode == 0, f"{result.report}\n{vscode.diagnostics()}"
        assert result.stdout.strip() == "Done.", result.report

    cold, warm = two_sessions(capi, "claude-sonnet-4.5", run, "Bash", "command")
    for session in (cold, warm):
        assert session.turns >= STEPS + 1, session
        assert session.later_read_share >= 0.97, session
    assert warm.first_read > 0, warm  # the tools and Copilot's system prompt
    assert cold.first_read == 0, cold


def test_codex_sessions(vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path) -> None:
    server = _HostAsServer(vscode)

    def run(tag: str, _: Path) -> None:
        (tmp_path / tag).mkdir()
        result = run_codex(
            codex_or_skip(), server, tmp_path / tag, CODEX_MODEL, f"Please run the {tag} steps."
        )
        assert result.last_message == "Done.", result.report

    cold, warm = two_sessions(capi, "gpt-5-mini", run, "exec_command", "cmd")
    for session in (cold, warm):
        assert session.turns >= STEPS + 1, session
        assert session.later_read_share >= 0.97, session
    assert warm.first_read > 0, warm


def test_gemini_cli_sessions(vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path) -> None:
    def run(tag: str, _: Path) -> None:
        workdir = tmp_path / "work"
        workdir.mkdir(exist_ok=True)
        result = run_gemini(
            gemini_or_skip(),
            vscode.base_url.removesuffix("/v1"),
            f"Please run the {tag} steps.",
            cwd=workdir,
            home=tmp_path / "home",
            model="gemini-2.5-pro",
            output_format="json",
            approval_mode=YOLO,
            timeout=300,
        )
        assert result.returncode == 0, f"{result.report}\n{vscode.diagnostics()}"

    cold, warm = two_sessions(capi, "gemini-2.5-pro", run, "run_shell_command", "command")
    for session in (cold, warm):
        assert session.turns >= STEPS + 1, session
