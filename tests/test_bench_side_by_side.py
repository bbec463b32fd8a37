"""The side-by-side benchmark keeps working: its table judges each row against issue 46's
target, and `python -m bench.side_by_side --quick` starts its own code-server host, measures
the provider alone and the bridge in every dialect, and says why Agent Maestro is left out when
its VSIX is not there. Nothing here checks speed (docs/benchmarks.md)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from processes import run
from vscode_host import find_tools

from bench import agent_maestro
from bench.side_by_side import QUICK
from bench.side_table import Results, table

REPO_ROOT = Path(__file__).resolve().parents[1]
NUMBER = r"[\d,]+(\.\d+)?"
SERVERS = ["vscode.lm", "Agent Maestro", "Maestro Bridge"]


def _rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def test_the_table_judges_times_and_rates_against_their_targets() -> None:
    results: Results = {
        "short messages": {"Agent Maestro": [10.0], "Maestro Bridge": [8.0]},  # 0.8: met
        "short": {"vscode.lm": [5.0]},
        "history messages": {"Agent Maestro": [200.0], "Maestro Bridge": [190.0]},  # 0.95
        "history": {"vscode.lm": [100.0]},
        "stream": {"vscode.lm": [6000.0], "Agent Maestro": [5000.0], "Maestro Bridge": [5100.0]},
        "concurrent": {"Agent Maestro": [40000.0], "Maestro Bridge": [30000.0]},
    }
    rows = _rows(table(results, QUICK, SERVERS, []))
    [short] = [r for r in rows if "short request" in r[0]]
    assert short[2:] == ["5.00", "10.0", "8.00", "0.80", "≤ 0.9: met", "1.60"]
    [history] = [r for r in rows if "history" in r[0]]
    assert history[5:7] == ["0.95", "≤ 0.9: MISSED"]
    [stream] = [r for r in rows if "stream (" in r[0]]
    assert stream[5:] == ["1.02", "≥ 1.0: met", "0.85"]
    [many] = [r for r in rows if "at once" in r[0]]
    assert many[2] == "-" and many[5:7] == ["0.75", "≥ 1.0: MISSED"]


def test_without_agent_maestro_the_table_says_so() -> None:
    results: Results = {"stream": {"vscode.lm": [6000.0], "Maestro Bridge": [5100.0]}}
    text = table(results, QUICK, SERVERS, [agent_maestro.missing_message()])
    [stream] = [r for r in _rows(text) if "stream (" in r[0]]
    assert stream[3] == "-" and stream[5] == "-" and stream[6] == "≥ 1.0"
    assert "Agent Maestro is left out: no VSIX" in text


@pytest.mark.timeout(600)
def test_quick_side_by_side_prints_every_figure(tmp_path: Path) -> None:
    find_tools()  # fails under CI, skips elsewhere, when code-server & co. are missing
    # A VSIX path that does not exist: Agent Maestro is left out, whatever the cache holds.
    env = {**os.environ, "MAESTRO_AGENT_MAESTRO_VSIX": str(tmp_path / "none.vsix")}
    command = [sys.executable, "-m", "bench.side_by_side", "--quick"]
    done = run(command, cwd=REPO_ROOT, timeout=500, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = _rows(done.stdout)
    labels = [row[0] for row in rows]
    for dialect in ("responses", "messages", "chat", "gemini"):
        assert any(f"short request, {dialect}" in label for label in labels), labels
        assert any(f"item {dialect} history" in label for label in labels), labels
    for row in rows:
        bridge = row[4]
        assert re.fullmatch(NUMBER, bridge) and float(bridge.replace(",", "")) > 0, row
        if "at once" not in row[0]:  # the provider alone has no concurrent figure
            assert re.fullmatch(NUMBER, row[2]), row
    assert "Agent Maestro is left out: no VSIX at" in done.stdout
