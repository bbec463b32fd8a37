"""`python -m bench.vscode_host [--quick]`: the bridge through a real VS Code extension host,
against that host's own `vscode.lm` (opt-in: it needs code-server, see tests/vscode_harness.py).

One code-server host runs the Maestro Bridge VSIX and the scripted-model test extension. Each
round measures, in turn (the order flips every round):
- vscode.lm: the test extension's own loop in the extension host (`benchLm` in
  editor-client/test-fixtures/scripted-model) asks the scripted model for N parts, then for one
  part K times: parts/s, and ms from `sendRequest` to the first part;
- end to end: an aiohttp client streams the same model through the bridge's Responses endpoint
  on the language server the extension started: deltas/s, and ms to the first delta.
Every figure is the median of the rounds, with min and max. Nothing here asserts speed.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from bench import load, report
from bench.figures import percentile

REPO_ROOT = Path(__file__).resolve().parents[1]
# The harness lives beside the tests it was written for; it needs no pytest.
sys.path.insert(0, str(REPO_ROOT / "tests"))

from vscode_harness import missing_tools, start_host, stop_host, tool_paths  # noqa: E402
from vscode_session import VSCodeHost  # noqa: E402

MODEL = "scripted-model"
TARGET = 0.95  # end-to-end deltas/s against vscode.lm's own parts/s (issue 18)


@dataclass(frozen=True)
class Sizes:
    rounds: int
    parts: int  # one stream
    short: int  # one-part requests, one after another, for the time to the first part


FULL = Sizes(rounds=3, parts=20_000, short=300)
QUICK = Sizes(rounds=1, parts=200, short=5)

Results = dict[str, list[float]]  # figure key -> one value per round


def _record(results: Results, key: str, value: float) -> None:
    results.setdefault(key, []).append(value)


def _lm_runs(host: VSCodeHost, parts: int, requests: int) -> list[dict[str, Any]]:
    """`benchLm` in the extension host; its runs (parts, firstMs, totalMs)."""
    timeout = 120 + requests * 2 + parts / 200
    request = {"bench": {"parts": parts, "requests": requests}}
    entry = host.control_answer(host.send_control(request), request, timeout)
    runs: list[dict[str, Any]] = entry["runs"]
    return runs


def measure_lm(host: VSCodeHost, sizes: Sizes, results: Results, problems: list[str]) -> None:
    [stream] = _lm_runs(host, sizes.parts, 1)
    if stream["parts"] != sizes.parts:
        problems.append(f"vscode.lm: {stream['parts']} of {sizes.parts} parts")
    _record(results, "lm_rate", sizes.parts / (stream["totalMs"] / 1000))
    short = _lm_runs(host, 1, sizes.short)
    problems += [f"vscode.lm one-part: {r['parts']} parts" for r in short if r["parts"] != 1]
    _record(results, "lm_first_p50", percentile([r["firstMs"] for r in short], 50))
    _record(results, "lm_first_p99", percentile([r["firstMs"] for r in short], 99))


async def _e2e(url: str, sizes: Sizes, results: Results, problems: list[str]) -> None:
    async with load.new_session() as session:
        ask = f"[bench {sizes.parts}]"
        stream = await load.one_stream(session, url, sizes.parts, model=MODEL, text=ask)
        if not stream.ok:
            problems.append(f"end to end: {stream.error}")
        _record(results, "e2e_rate", sizes.parts / stream.total if stream.total else 0.0)
        short = [
            await load.one_stream(session, url, 1, model=MODEL, text="[bench 1]")
            for _ in range(sizes.short)
        ]
    problems += [f"end to end one-delta: {r.error}" for r in short if not r.ok]
    firsts = [r.first_delta * 1000 for r in short]
    _record(results, "e2e_first_p50", percentile(firsts, 50))
    _record(results, "e2e_first_p99", percentile(firsts, 99))


def measure_e2e(host: VSCodeHost, sizes: Sizes, results: Results, problems: list[str]) -> None:
    asyncio.run(_e2e(host.base_url.removesuffix("/v1"), sizes, results, problems))


def run_rounds(
    host: VSCodeHost, sizes: Sizes, log: Callable[[str], None]
) -> tuple[Results, list[str]]:
    results: Results = {}
    problems: list[str] = []
    warm = dataclasses.replace(sizes, parts=min(sizes.parts, 1000), short=3)
    measure_lm(host, warm, {}, [])  # the first requests of a fresh host load code on both paths
    measure_e2e(host, warm, {}, [])
    for index in range(sizes.rounds):
        steps = [("vscode.lm", measure_lm), ("end to end", measure_e2e)]
        if index % 2:
            steps.reverse()
        for name, step in steps:
            log(f"round {index + 1} of {sizes.rounds}: {name}")
            step(host, sizes, results, problems)
        _record(results, "ratio", results["e2e_rate"][-1] / results["lm_rate"][-1])
        for pct in ("p50", "p99"):
            added = results[f"e2e_first_{pct}"][-1] - results[f"lm_first_{pct}"][-1]
            _record(results, f"added_{pct}", added)
    return results, problems


def _fmt(value: float) -> str:
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _cell(values: list[float], fmt: Callable[[float], str] = _fmt, sep: str = "-") -> str:
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}{sep}{fmt(max(values))})"


def _percent(value: float) -> str:
    return f"{value * 100:.0f}"


def _added(value: float) -> str:
    return f"{value:+.2f}"


@dataclass(frozen=True)
class Figure:
    label: str
    unit: str
    lm: str  # the key of vscode.lm's figure in Results
    e2e: str  # the end-to-end one
    compared: str  # end to end against vscode.lm, per round
    written: Callable[[float], str]  # how the comparison is written
    suffix: str  # and its unit


def figures(sizes: Sizes) -> list[Figure]:
    short = f"{sizes.short} one-part requests"
    first = "time to first part / delta"
    return [
        Figure(
            f"one stream, {sizes.parts:,} parts",
            "parts/s, deltas/s",
            "lm_rate",
            "e2e_rate",
            "ratio",
            _percent,
            " %",
        ),
        Figure(
            f"{first}, p50 of {short}",
            "ms",
            "lm_first_p50",
            "e2e_first_p50",
            "added_p50",
            _added,
            " ms added",
        ),
        Figure(
            f"{first}, p99", "ms", "lm_first_p99", "e2e_first_p99", "added_p99", _added, " ms added"
        ),
    ]


def table(results: Results, sizes: Sizes) -> str:
    ratio = statistics.median(results["ratio"])
    targets = {"ratio": f"≥ {TARGET * 100:.0f} %: " + ("met" if ratio >= TARGET else "MISSED")}
    rows = [
        "| figure | unit | vscode.lm | end to end | end to end vs vscode.lm | target |",
        "|---|---|---|---|---|---|",
    ]
    for fig in figures(sizes):
        rows.append(
            f"| {fig.label} | {fig.unit} | {_cell(results[fig.lm])} | {_cell(results[fig.e2e])} "
            f"| {_cell(results[fig.compared], fig.written, ' to ')}{fig.suffix} "
            f"| {targets.get(fig.compared, '')} |"
        )
    return "\n".join(rows)


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through run()'s `finally`, which stops the host


def run(sizes: Sizes, log: Callable[[str], None]) -> tuple[str, list[str]]:
    """Starts one VS Code host, measures, stops it (whatever happens); the markdown table and
    the problems met (missing parts, failed requests)."""
    missing = missing_tools(tool_paths())
    if missing:
        raise SystemExit(f"python -m bench.vscode_host needs: {missing}")
    previous = signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-vscode-") as workdir:
            log("starting code-server, Chromium and the extension host")
            # The extension's default log level, as users run it (the tests use debug).
            host = start_host(tool_paths(), Path(workdir), {"maestroBridge.logLevel": "info"})
            try:
                results, problems = run_rounds(host, sizes, log)
            finally:
                left = stop_host(host)
            if left:
                problems.append(f"language servers outlived VS Code (killed): {left}")
    finally:
        signal.signal(signal.SIGTERM, previous)
    return table(results, sizes), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.vscode_host", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round (smoke run)")
    parser.add_argument("--rounds", type=int, help="rounds (default 3, quick 1)")
    parser.add_argument("--parts", type=int, help=f"parts of the stream (default {FULL.parts:,})")
    parser.add_argument("--short", type=int, help=f"one-part requests (default {FULL.short})")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    for name in ("rounds", "parts", "short"):
        if getattr(args, name):
            sizes = dataclasses.replace(sizes, **{name: getattr(args, name)})

    before, started = report.machine(), time.perf_counter()
    text, problems = run(sizes, report.log)
    command = "python -m bench.vscode_host " + " ".join(argv if argv is not None else sys.argv[1:])
    heading = (
        f"`{command.strip()}`: {sizes.rounds} round(s), {time.perf_counter() - started:.0f} s; "
        "median (min-max) of the rounds"
    )
    return report.finish(heading, f"{text}\n", before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
