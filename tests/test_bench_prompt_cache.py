"""`python -m bench.prompt_cache` keeps working: every dialect measured, no failed turn, and
the ratios it prints are the ones the prompt-cache tests hold the bridge to."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from processes import run

from bench.cache_sessions import DIALECTS, Usage
from bench.prompt_cache import ratios

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_ratios_are_cached_over_the_previous_input() -> None:
    usages = [Usage(100, 0), Usage(150, 100), Usage(200, 120)]
    assert ratios(usages) == [1.0, 0.8]


def test_the_command_prints_every_dialect() -> None:
    command = [sys.executable, "-m", "bench.prompt_cache", "--turns", "4"]
    done = run(command, cwd=REPO_ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    for dialect in DIALECTS:
        row = re.search(
            rf"^\| {dialect} \|.*\| ([\d.]+) \(([\d.]+)\) \| ([\d.]+) \|$", done.stdout, re.M
        )
        assert row is not None, done.stdout
        assert float(row.group(2)) >= 0.95, row.group(0)  # the least of the turns
