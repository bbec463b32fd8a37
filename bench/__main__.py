"""`python -m bench [--quick]`: the bridge against the baseline, side by side, alternating.

Each round starts both servers afresh and runs every measurement on each in turn (the order
flips every round); each figure is the median of the rounds, with min and max. Nothing here
asserts speed: the `target` column only reports against the targets of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import load, servers
from bench.profile import Profiled

NAMES = ("baseline", "bridge")
MB = 1024 * 1024


@dataclass(frozen=True)
class Sizes:
    rounds: int
    stream_deltas: int  # one stream
    sequential: int  # one-delta requests, one after another
    concurrent_deltas: int  # per stream, with 16 and 64 streams
    requests: int  # one-delta requests before the last RSS reading


FULL = Sizes(
    rounds=3, stream_deltas=20_000, sequential=200, concurrent_deltas=2_000, requests=5_000
)
QUICK = Sizes(rounds=1, stream_deltas=500, sequential=20, concurrent_deltas=20, requests=100)
CONCURRENCY = (16, 64)


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str


def figures(sizes: Sizes) -> list[Figure]:
    rows = [
        Figure("stream_dps", f"one stream, {sizes.stream_deltas:,} deltas", "deltas/s"),
        Figure("ttfb_p50", f"one-delta response ({sizes.sequential} seq.): TTFB p50", "ms"),
        Figure("ttfb_p99", "one-delta response: TTFB p99", "ms"),
        Figure("total_p50", "one-delta response: total p50", "ms"),
        Figure("total_p99", "one-delta response: total p99", "ms"),
    ]
    for streams in CONCURRENCY:
        each = f"{streams} streams x {sizes.concurrent_deltas:,}"
        rows += [
            Figure(f"agg_dps_{streams}", f"{each}: aggregate", "deltas/s"),
            Figure(f"p50_{streams}", f"{each}: stream time p50", "ms"),
            Figure(f"p99_{streams}", f"{each}: stream time p99", "ms"),
            Figure(f"errors_{streams}", f"{each}: failed streams", "count"),
        ]
    rows += [
        Figure("cpu_per_1k", "server CPU per 1,000 deltas (one stream)", "s"),
        Figure("start", "process start until the endpoint answers", "s"),
        Figure("rss_idle_http", "RSS idle, the HTTP process (bridge: lsp, no editor)", "MiB"),
        Figure("rss_idle", "RSS idle, all server processes", "MiB"),
        Figure("rss_loaded", "RSS after the load tests", "MiB"),
        Figure("rss_after", f"RSS after {sizes.requests:,} more requests", "MiB"),
    ]
    return rows


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


Results = dict[str, dict[str, list[float]]]  # server name -> figure key -> one value per round


def _record(results: Results, name: str, key: str, value: float) -> None:
    results.setdefault(name, {}).setdefault(key, []).append(value)


def _check(ok: bool, what: str, errors: list[str]) -> None:
    if not ok:
        errors.append(what)


async def _measure(server: servers.Server, sizes: Sizes, results: Results, step: str) -> list[str]:
    """One measurement on one server; the error messages of failed requests, if any."""
    name, url = server.name, server.url
    problems: list[str] = []
    if step == "stream":
        cpu = server.cpu_seconds()
        [result] = await load.sequential(url, 1, sizes.stream_deltas)
        cpu = server.cpu_seconds() - cpu
        _check(result.ok, f"{name} one stream: {result.error}", problems)
        _record(results, name, "stream_dps", sizes.stream_deltas / result.total)
        _record(results, name, "cpu_per_1k", cpu / sizes.stream_deltas * 1000)
    elif step == "sequential":
        runs = await load.sequential(url, sizes.sequential)
        problems += [f"{name} one-delta: {r.error}" for r in runs if not r.ok]
        for key, values in (("ttfb", [r.ttfb for r in runs]), ("total", [r.total for r in runs])):
            _record(results, name, f"{key}_p50", percentile(values, 50) * 1000)
            _record(results, name, f"{key}_p99", percentile(values, 99) * 1000)
    elif step.startswith("concurrent"):
        streams = int(step.split("_")[1])
        wall, runs = await load.concurrent(url, streams, sizes.concurrent_deltas)
        broken = [r for r in runs if not r.ok]
        problems += [f"{name} {streams} streams: {r.error}" for r in broken[:3]]
        totals = [r.total for r in runs if r.ok] or [0.0]
        _record(results, name, f"agg_dps_{streams}", sum(r.deltas for r in runs) / wall)
        _record(results, name, f"p50_{streams}", percentile(totals, 50) * 1000)
        _record(results, name, f"p99_{streams}", percentile(totals, 99) * 1000)
        _record(results, name, f"errors_{streams}", len(broken))
    elif step == "requests":
        _record(results, name, "rss_loaded", server.rss_bytes() / MB)
        failed = await load.many(url, sizes.requests)
        if failed:
            problems.append(f"{name}: {failed} of {sizes.requests} requests failed")
        await asyncio.sleep(0.2)
        _record(results, name, "rss_after", server.rss_bytes() / MB)
    return problems


STEPS = ["stream", "sequential", *(f"concurrent_{n}" for n in CONCURRENCY), "requests"]


def run_round(
    sizes: Sizes,
    results: Results,
    order: tuple[str, ...],
    log: Callable[[str], None],
    profile: Path | None = None,
) -> list[str]:
    problems: list[str] = []
    started: list[servers.Server] = []
    try:
        for name in order:
            server = servers.start(name)
            started.append(server)
            time.sleep(0.3)  # settle before reading the idle footprint
            _record(results, name, "start", server.start_seconds)
            _record(results, name, "rss_idle", server.rss_bytes() / MB)
            _record(results, name, "rss_idle_http", servers.rss_bytes(server.pids[-1]) / MB)
        for step in STEPS:
            for server in started:
                log(f"  {server.name}: {step}")
                with Profiled(server, profile, step):
                    problems += asyncio.run(_measure(server, sizes, results, step))
    finally:
        for server in started:
            server.stop()
    return problems


def _fmt(value: float) -> str:
    if value == int(value) and abs(value) < 1000:
        return str(int(value))
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3f}"


def _cell(values: list[float]) -> str:
    if len(values) == 1:
        return _fmt(values[0])
    return f"{_fmt(statistics.median(values))} ({_fmt(min(values))}-{_fmt(max(values))})"


def _targets(results: Results) -> dict[str, str]:
    """Each target of the issue, judged on the medians: 'met' or 'missed'."""
    med = {
        name: {key: statistics.median(values) for key, values in figures_.items()}
        for name, figures_ in results.items()
    }
    base, bridge = med["baseline"], med["bridge"]

    def verdict(ok: bool) -> str:
        return "met" if ok else "MISSED"

    return {
        "stream_dps": "≥ 50% of baseline: "
        + verdict(bridge["stream_dps"] >= 0.5 * base["stream_dps"]),
        "ttfb_p50": "≤ baseline + 2 ms: " + verdict(bridge["ttfb_p50"] <= base["ttfb_p50"] + 2),
        "p99_64": "no error, p99 ≤ 2 x p50: "
        + verdict(bridge["errors_64"] == 0 and bridge["p99_64"] <= 2 * bridge["p50_64"]),
        "start": "≤ 0.6 s: " + verdict(bridge["start"] <= 0.6),
        "rss_idle_http": "≤ 80 MiB: " + verdict(bridge["rss_idle_http"] <= 80),
        "rss_idle": "≤ 80 MiB: " + verdict(bridge["rss_idle"] <= 80),
        "rss_after": "flat (≤ +5 MiB): " + verdict(bridge["rss_after"] - bridge["rss_loaded"] <= 5),
    }


def table(results: Results, sizes: Sizes) -> str:
    targets = _targets(results)
    header = "| figure | unit | baseline | bridge | bridge / baseline | target |"
    lines = [header, "|---|---|---|---|---|---|"]
    for fig in figures(sizes):
        base, bridge = results["baseline"][fig.key], results["bridge"][fig.key]
        b_med, r_med = statistics.median(base), statistics.median(bridge)
        ratio = f"{r_med / b_med:.2f}" if b_med else ("-" if not r_med else "inf")
        lines.append(
            f"| {fig.label} | {fig.unit} | {_cell(base)} | {_cell(bridge)} | {ratio} "
            f"| {targets.get(fig.key, '')} |"
        )
    return "\n".join(lines)


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load1 = os.getloadavg()[0]
    return (
        f"{os.cpu_count()} cores ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}, load average {load1:.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round (CI smoke run)")
    parser.add_argument("--rounds", type=int, help="rounds (default 3, quick 1)")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        type=Path,
        help="write py-spy flame graphs of every server process and step (first round) to DIR",
    )
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    if args.rounds:
        sizes = dataclasses.replace(sizes, rounds=args.rounds)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    before = machine()
    started = time.perf_counter()
    results: Results = {}
    problems: list[str] = []
    for index in range(sizes.rounds):
        order = NAMES if index % 2 == 0 else NAMES[::-1]
        log(f"round {index + 1} of {sizes.rounds} ({' then '.join(order)})")
        problems += run_round(sizes, results, order, log, args.profile if index == 0 else None)
    elapsed = time.perf_counter() - started
    command = "python -m bench" + (" --quick" if args.quick else "")
    if args.rounds:
        command += f" --rounds {args.rounds}"
    text = (
        f"`{command}`: {sizes.rounds} round(s), {elapsed:.0f} s; median (min-max) of the rounds\n"
        f"machine at start: {before}\nmachine at end: {machine()}\n\n{table(results, sizes)}\n"
    )
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    for problem in problems[:20]:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
