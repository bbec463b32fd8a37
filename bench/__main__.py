"""`python -m bench [--quick]`: the bridge in every dialect against the baselines, alternating.

Each round starts the two baselines (bench/baseline.py: the json module's writer and orjson's)
and a fresh bridge per dialect, and runs every measurement on
each in turn (the order rotates every round); each figure is the median of the rounds, with min
and max. Nothing here asserts speed: the `target` column only reports against the targets of
docs/benchmarks.md, and whether every dialect is within 10 % of Responses.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import cpu_clock, history, load, report, servers
from bench.dialects import DIALECTS, RESPONSES, Dialect
from bench.figures import CONCURRENCY, FULL, QUICK, Results, Sizes, percentile
from bench.profile import Profiled
from bench.table import BASELINES, REFERENCE, table

MB = 1024 * 1024


@dataclass(frozen=True)
class Column:
    """One server of the table: a baseline (Responses only) or the bridge in one dialect."""

    name: str
    kind: str  # a key of servers.COMMANDS
    dialect: Dialect


def columns(dialects: list[str]) -> list[Column]:
    bridges = [Column(name, "bridge", DIALECTS[name]) for name in dialects]
    baselines = [Column(name, name, RESPONSES) for name in BASELINES]
    return [*baselines, *bridges]


def _record(results: Results, name: str, key: str, value: float) -> None:
    results.setdefault(name, {}).setdefault(key, []).append(value)


async def _measure(
    server: servers.Server, dialect: Dialect, sizes: Sizes, results: Results, step: str
) -> list[str]:
    """One measurement on one server; the error messages of failed requests, if any."""
    name, url = server.name, server.url
    problems: list[str] = []
    if step == "stream":
        cpu = server.cpu_seconds()
        [result] = await load.sequential(url, 1, sizes.stream_deltas, dialect)
        cpu = server.cpu_seconds() - cpu
        if not result.ok:
            problems.append(f"{name} one stream: {result.error}")
        _record(results, name, "stream_dps", sizes.stream_deltas / result.total)
        _record(results, name, "cpu_per_1k", cpu / sizes.stream_deltas * 1000)
    elif step == "sequential":
        runs = await load.sequential(url, sizes.sequential, 1, dialect)
        problems += [f"{name} one-delta: {r.error}" for r in runs if not r.ok]
        for key, values in (("ttfb", [r.ttfb for r in runs]), ("total", [r.total for r in runs])):
            _record(results, name, f"{key}_p50", percentile(values, 50) * 1000)
            _record(results, name, f"{key}_p99", percentile(values, 99) * 1000)
    elif step.startswith("concurrent"):
        streams = int(step.split("_")[1])
        wall, runs = await load.concurrent(url, streams, sizes.concurrent_deltas, dialect)
        broken = [r for r in runs if not r.ok]
        problems += [f"{name} {streams} streams: {r.error}" for r in broken[:3]]
        totals = [r.total for r in runs if r.ok] or [0.0]
        _record(results, name, f"agg_dps_{streams}", sum(r.deltas for r in runs) / wall)
        _record(results, name, f"p50_{streams}", percentile(totals, 50) * 1000)
        _record(results, name, f"p99_{streams}", percentile(totals, 99) * 1000)
        _record(results, name, f"errors_{streams}", len(broken))
    elif step == "requests":
        _record(results, name, "rss_loaded", server.rss_bytes() / MB)
        failed = await load.many(url, sizes.requests, dialect=dialect)
        if failed:
            problems.append(f"{name}: {failed} of {sizes.requests} requests failed")
        await asyncio.sleep(0.2)
        _record(results, name, "rss_after", server.rss_bytes() / MB)
    return problems


STEPS = ["stream", "sequential", *(f"concurrent_{n}" for n in CONCURRENCY), "requests"]


def run_round(
    sizes: Sizes,
    results: Results,
    order: list[Column],
    log: Callable[[str], None],
    profile: Path | None = None,
) -> list[str]:
    problems: list[str] = []
    started: list[tuple[servers.Server, Column]] = []
    try:
        for column in order:
            server = servers.start(column.name, column.kind, column.dialect)
            started.append((server, column))
            # Settle before reading the idle footprint: the bridge's language server imports
            # the dialects' handlers just after it listens (lsp/endpoint.py, the warm-up);
            # idle is once that is done, and no other server's figure may pay for it.
            time.sleep(0.3)
            asyncio.run(cpu_clock.idle_cpu(server.pids, quiet=0.05, most=5.0))
            _record(results, column.name, "start", server.start_seconds)
            _record(results, column.name, "rss_idle", server.rss_bytes() / MB)
            _record(results, column.name, "rss_idle_http", servers.rss_bytes(server.pids[-1]) / MB)
        for step in STEPS:
            for server, column in started:
                log(f"  {server.name}: {step}")
                with Profiled(server, profile, step):
                    problems += asyncio.run(_measure(server, column.dialect, sizes, results, step))
    finally:
        for server, _ in started:
            server.stop()
    return problems


def rotated(items: list[Column], by: int) -> list[Column]:
    by %= len(items)
    return items[by:] + items[:by]


def dialect_names(text: str | None) -> list[str]:
    """`--dialects a,b` in the table's order; Responses always: the others are held to it."""
    if text is None:
        return list(DIALECTS)
    asked = {name.strip() for name in text.split(",") if name.strip()}
    unknown = asked - set(DIALECTS)
    if unknown:
        names = ", ".join(sorted(unknown))
        raise argparse.ArgumentTypeError(f"unknown {names}: choose from {', '.join(DIALECTS)}")
    return [name for name in DIALECTS if name in asked or name == REFERENCE]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round (CI smoke run)")
    parser.add_argument("--rounds", type=int, help="rounds (default 3, quick 1)")
    parser.add_argument(
        "--dialects",
        type=dialect_names,
        default=list(DIALECTS),
        metavar="A,B",
        help=f"the bridge's dialects to measure, of {', '.join(DIALECTS)} (default: all; "
        f"{REFERENCE} always, as the reference)",
    )
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="skip the history sweep (bench/history.py: what a long conversation costs)",
    )
    parser.add_argument(
        "--vscode",
        action="store_true",
        help="also the bridge through a real VS Code host against vscode.lm's own rate "
        "(bench/vscode_host.py; needs code-server, as the VS Code end-to-end tests do)",
    )
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables to FILE")
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
    dialects: list[str] = args.dialects

    log = report.log
    before = report.machine()
    started = time.perf_counter()
    results: Results = {}
    problems: list[str] = []
    for index in range(sizes.rounds):
        order = rotated(columns(dialects), index)
        log(f"round {index + 1} of {sizes.rounds} ({', '.join(c.name for c in order)})")
        problems += run_round(sizes, results, order, log, args.profile if index == 0 else None)
    sections = [f"### Servers, every dialect\n\n{table(results, sizes, dialects)}\n"]
    if not args.no_history:
        log("history sweep")
        swept, failed = history.run(history.QUICK if args.quick else history.FULL, dialects, log)
        sections.append(f"### History sweep\n\n{swept}")
        problems += failed if swept else [*failed, "the history sweep printed no figures"]
    if args.vscode:
        from bench import vscode_host  # imports the VS Code harness from tests/: only when asked

        vscode_sizes = vscode_host.QUICK if args.quick else vscode_host.FULL
        if args.rounds:
            vscode_sizes = dataclasses.replace(vscode_sizes, rounds=args.rounds)
        compared, failed = vscode_host.run(vscode_sizes, log)
        sections.append(f"### Through a real VS Code host\n\n{compared}\n")
        problems += failed
    elapsed = time.perf_counter() - started
    command = "python -m bench" + (" --quick" if args.quick else "")
    if args.rounds:
        command += f" --rounds {args.rounds}"
    if dialects != list(DIALECTS):
        command += f" --dialects {','.join(dialects)}"
    if args.no_history:
        command += " --no-history"
    if args.vscode:
        command += " --vscode"
    heading = (
        f"`{command}`: {sizes.rounds} round(s), {elapsed:.0f} s; median (min-max) of the rounds"
    )
    return report.finish(heading, "\n".join(sections), before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
