"""The credits benchmark's "before": a real Claude Code session through the real Copilot 0.67
provider with the bridge's token savings switched off (MAESTRO_BRIDGE_SAVINGS_OFF=all, the
measurement switch of bridge/core/savings_off.py), checked against what the same cold session
costs with them on (tests/test_e2e_copilot_credit_sessions.py, docs/benchmarks.md). One cold
session only, to keep CI short; bench/credit_sessions.py runs every agent and every saving.

The loose bound shows the savings matter: with them off, Claude Code's deferred tools go to
the cloud on every request, so the session's input (written to and read from the cache) is at
least SAVED_SHARE larger than the same session's with them on. It fails if the switch does
nothing: the session then costs what the savings-on session costs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_code_cli import claude_or_skip, run_claude
from copilot_host import copilot_fixtures
from credit_tools import DEFERRED, agent_bodies, tool_name
from fake_capi import FakeCapi
from test_e2e_copilot_agents import CODEX_MODEL
from test_e2e_copilot_credit_sessions import STEPS, bill, session_rules
from vscode_host import VSCodeHost

from bridge.anthropic.convert import BILLING_HEADER
from headless_editor.script import Script

pytestmark = pytest.mark.timeout(600)


capi, vscode = copilot_fixtures(
    {"maestroBridge.modelAliases": {CODEX_MODEL: "gpt-5-mini"}},
    extra_env={"MAESTRO_BRIDGE_SAVINGS_OFF": "all"},
)

# The cold Claude Code session with the savings on (docs/benchmarks.md, "Credits of agent
# sessions"): its input tokens over the 8 turns, read from and written to the cache. Claude
# Code's prompt carries this run's folder, so the bound is loose: the savings cost less than
# 1% of this session (one deferred tool, the billing line), and are asserted by what reaches
# the cloud rather than by the total alone.
ON_COLD_INPUT = 240_188


def test_claude_code_session_costs_more_without_the_savings(
    vscode: VSCodeHost, capi: FakeCapi, tmp_path: Path
) -> None:
    capi.clear()
    capi.script = Script.model_validate({"rules": session_rules("cold", "Bash", "command")})
    result = run_claude(
        claude_or_skip(),
        vscode.base_url.removesuffix("/v1"),
        "Please run the cold steps.",
        cwd=tmp_path,
        home=tmp_path / "home",
        model="claude-sonnet-4.5",
        timeout=300,
    )
    capi.script = None
    assert result.returncode == 0, f"{result.report}\n{vscode.diagnostics()}"
    assert result.stdout.strip() == "Done.", result.report
    session = bill(capi.billed, "claude-sonnet-4.5")
    total = session.full_price + session.read + session.written
    names = [tool_name(t) for t in agent_bodies(capi, "claude-sonnet-4.5")[0]["tools"]]
    print(f"\nCREDIT-SESSION-OFF claude-sonnet-4.5 cold {session} tools {names}")
    assert session.turns >= STEPS + 1, session
    assert total >= ON_COLD_INPUT * 0.98, (total, ON_COLD_INPUT, names)
    bodies = agent_bodies(capi, "claude-sonnet-4.5")
    # What the savings keep from the cloud reaches it: Claude Code's billing line in every
    # request, and its deferred tool though no tool search loaded it.
    assert all(BILLING_HEADER in json.dumps(b) for b in bodies), bodies[0]
    assert all(DEFERRED in (tool_name(t) for t in b["tools"]) for b in bodies), names
