"""The benchmark keeps working: the `sim-bench` model, and `python -m bench --quick` end to end.

Nothing here checks speed (docs/benchmarks.md holds the figures); only that every figure is
measured and printed, and that both servers answered every request.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from processes import run

from bench.__main__ import QUICK, figures
from bridge.core.backend import ChatMessage, ChatRequest, DataPart, TextPart
from headless_editor.simulated_model import SimulatedModel

REPO_ROOT = Path(__file__).resolve().parents[1]


def bench_request(text: str) -> ChatRequest:
    message = ChatMessage(role="user", content=[TextPart(value=text)])
    return ChatRequest(model="sim-bench", messages=[message])


@pytest.mark.parametrize(("text", "count"), [("3", 3), ("stream 12 parts", 12), ("none", 1)])
async def test_sim_bench_streams_the_parts_asked_for(text: str, count: int) -> None:
    parts = [part async for part in SimulatedModel().respond(bench_request(text))]
    assert [type(part) for part in parts] == [TextPart] * count + [DataPart]
    usage = parts[-1]
    assert isinstance(usage, DataPart) and usage.mimeType == "usage"
    assert json.loads(base64.b64decode(usage.data))["completion_tokens"] == count


def test_sim_bench_is_listed() -> None:
    assert "sim-bench" in {model.id for model in SimulatedModel().models()}


def test_quick_bench_prints_every_figure() -> None:
    # Should it hang, its servers are killed with it.
    done = run([sys.executable, "-m", "bench", "--quick"], cwd=REPO_ROOT, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    labels = [row.split(" | ")[0].removeprefix("| ") for row in rows[1:]]
    assert labels == [figure.label for figure in figures(QUICK)]
    for row in rows[1:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        baseline, bridge, ratio = cells[2], cells[3], cells[4]
        assert baseline and bridge and ratio, row  # measured on both, ratio printed
