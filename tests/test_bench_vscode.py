"""The VS Code benchmark keeps working: `python -m bench.vscode_host --quick` starts its own
code-server host (the harness of the VS Code end-to-end tests), measures vscode.lm and the bridge
end to end in it, and prints every figure. Nothing here checks speed (docs/benchmarks.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from processes import run
from vscode_host import find_tools

from bench.vscode_host import QUICK, figures

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(600)

NUMBER = r"[+-]?[\d,]+(\.\d+)?"  # 8,412 / 0.52 / +1.25


def test_quick_vscode_bench_prints_every_figure() -> None:
    find_tools()  # fails under CI, skips elsewhere, when code-server & co. are missing
    # Should it hang, its code-server, browser and language server are killed with it.
    done = run([sys.executable, "-m", "bench.vscode_host", "--quick"], cwd=REPO_ROOT, timeout=500)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    cells = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]
    assert [row[0] for row in cells] == [figure.label for figure in figures(QUICK)], done.stdout
    for row in cells:
        lm, e2e, compared = row[2], row[3], row[4]
        assert re.fullmatch(NUMBER, lm) and float(lm.replace(",", "")) > 0, row
        assert re.fullmatch(NUMBER, e2e) and float(e2e.replace(",", "")) > 0, row
        assert re.fullmatch(NUMBER + r"( \(.*\))? (%|ms added)", compared), row
    assert re.fullmatch(r"≥ 95 %: (met|MISSED)", cells[0][5]), cells[0]
