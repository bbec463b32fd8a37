"""`python -m bench.history`: what a long conversation costs, per dialect (issue 18).

A coding agent sends its whole history every turn. One `maestro-bridge serve` answers the
conversation each agent sends (bench/dialect_bodies.py), growing by items (1 to 4,000 small
items) and by bytes (a few items of 0.05 to 1 MB), with `sim-bench` streaming one part. For
every request: the time from sending it to the first text delta, and the CPU each server
process spent on it, read once both are idle again. The language server is the bridge's own
cost (HTTP, parse, validate, convert, JSON-RPC encode); the headless editor is the editor's
(JSON-RPC decode, token counting, the model). Each figure is the median of the repetitions.
Nothing here asserts speed: the verdict only reports against the target.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiohttp

from bench import conversation, cpu_clock, load, report, servers
from bench.conversation import Item
from bench.dialect_bodies import MODEL, encoded
from bench.dialect_streams import stream
from bench.dialects import DIALECTS
from bench.history_report import Judged, Point, sweep_table, verdict_table


@dataclass(frozen=True)
class Sizes:
    item_counts: tuple[int, ...]  # the items sweep; the first is the short request
    byte_sizes: tuple[int, ...]  # the bytes sweep, nominal body sizes
    repetitions: int  # measured requests per point (after one unmeasured warm-up)
    judged: Judged


FULL = Sizes(
    item_counts=(1, 200, 600, 2_000, 4_000),
    byte_sizes=(50_000, 180_000, 500_000, 1_000_000),
    repetitions=5,
    judged=Judged(4_000, 600, 500_000, 1_000_000, 180_000),
)
QUICK = Sizes(
    item_counts=(1, 20, 60),
    byte_sizes=(5_000, 20_000, 50_000),
    repetitions=1,
    judged=Judged(60, 20, 20_000, 50_000, 5_000),
)
LEGEND = (
    "items sweep: small items (~125 bytes each as Responses input: user and assistant texts, "
    "tool calls and their results); bytes sweep: 17 items, most of the body in 4 tool "
    "outputs of column-aligned text. Each body adds a ~1 KB system prompt and 2 tools. "
    "CPU: bridge = the language server process, editor = the headless editor process. "
    "µs / item and µs / KB: the bridge's CPU beyond the one-item request, per item or KB added."
)
PARTS = 1  # the part count of the last user text (conversation.LAST_TEXT)
Log = Callable[[str], None]


@dataclass(frozen=True)
class Request:
    sweep: str
    items: list[Item]
    target: int = 0


def requests(sizes: Sizes) -> list[Request]:
    made = [Request("items", conversation.history(count)) for count in sizes.item_counts]
    made += [Request("bytes", conversation.bulky(size), size) for size in sizes.byte_sizes]
    return made


async def _measure(
    session: aiohttp.ClientSession,
    server: servers.Server,
    point: Point,
    body: bytes,
    problems: list[str],
    record: bool,
    model: str,
) -> None:
    before = await cpu_clock.idle_cpu(server.pids)
    outcome = await stream(session, server.url, point.dialect, body, model)
    after = await cpu_clock.idle_cpu(server.pids)
    if not outcome.ok(PARTS if model == MODEL else None):
        error = outcome.error or f"text {outcome.text!r}, complete={outcome.complete}"
        problems.append(f"{point.dialect} {point.sweep} {point.items} items: {error}")
        return
    if record:
        point.first_delta.append(outcome.first_delta)
        editor, language_server = 0, 1  # server.pids: the editor spawned its language server
        point.editor_cpu.append(after[editor] - before[editor])
        point.bridge_cpu.append(after[language_server] - before[language_server])


async def sweep(
    server: servers.Server, sizes: Sizes, dialects: list[str], log: Log, model: str = MODEL
) -> tuple[list[Point], list[str]]:
    """Every point of both sweeps; for each, the dialects take turns, request by request,
    so that a noisy moment of the machine falls on all of them alike."""
    points: list[Point] = []
    problems: list[str] = []
    async with load.new_session() as session:  # one kept-alive connection, as an agent's
        for request in requests(sizes):
            points += await _point(session, server, request, sizes, dialects, problems, log, model)
    return points, problems


async def _point(
    session: aiohttp.ClientSession,
    server: servers.Server,
    request: Request,
    sizes: Sizes,
    dialects: list[str],
    problems: list[str],
    log: Log,
    model: str,
) -> list[Point]:
    """One request size: one warm-up, then the repetitions, the dialects taking turns."""
    bodies = {dialect: encoded(dialect, request.items, model) for dialect in dialects}
    mine = [
        Point(d, request.sweep, len(request.items), len(bodies[d]), request.target)
        for d in dialects
    ]
    log(f"  {request.sweep}: {len(request.items):,} items, {len(bodies[dialects[0]]):,} B")
    for repetition in range(sizes.repetitions + 1):
        for point in mine:
            body = bodies[point.dialect]
            await _measure(session, server, point, body, problems, repetition > 0, model)
    return mine


def run(sizes: Sizes, dialects: list[str], log: Log, model: str = MODEL) -> tuple[str, list[str]]:
    """Start one bridge, run both sweeps, stop it: the markdown tables and any failures."""
    server = servers.start("bridge", "bridge")
    try:
        if len(server.pids) != 2:
            raise RuntimeError(f"expected the editor and its language server, got {server.pids}")
        points, problems = asyncio.run(sweep(server, sizes, dialects, log, model))
    finally:
        server.stop()
    if any(not p.bridge_cpu for p in points):
        return "", problems  # a point with no good request has no figure to print
    first = sizes.item_counts[0]
    short = {p.dialect: p for p in points if p.sweep == "items" and p.items == first}
    ordered = sorted(points, key=lambda p: (dialects.index(p.dialect), p.sweep != "items"))
    text = (
        f"{LEGEND}\n\n{sweep_table(ordered, short)}\n\n"
        f"Verdict (target: the bridge's own CPU ≤ 15 ms per request at 4,000 items, ≤ 5 ms at "
        f"0.5 MB in 17 items; "
        f"linearity near 1 = linear)\n\n{verdict_table(ordered, short, sizes.judged)}\n"
    )
    return text, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.history", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repetition (CI)")
    parser.add_argument(
        "--dialects",
        default=",".join(DIALECTS),
        help=f"comma-separated, of {', '.join(DIALECTS)} (default: all)",
    )
    parser.add_argument("--repetitions", type=int, help="measured requests per point")
    parser.add_argument(
        "--model",
        default=MODEL,
        help=f"the simulated model asked (default {MODEL}, which skips Copilot's rules; "
        "sim-echo is the embedded default's, with them)",
    )
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables to FILE")
    args = parser.parse_args(argv)
    dialects = [d.strip() for d in args.dialects.split(",") if d.strip()]
    unknown = [d for d in dialects if d not in DIALECTS]
    if unknown or not dialects:
        parser.error(f"unknown dialect(s) {unknown}; choose from {', '.join(DIALECTS)}")
    sizes = QUICK if args.quick else FULL
    if args.repetitions:
        sizes = Sizes(sizes.item_counts, sizes.byte_sizes, args.repetitions, sizes.judged)

    before, started = report.machine(), time.perf_counter()
    text, problems = run(sizes, dialects, report.log, args.model)
    if not text:
        problems.append("no figures: no request of some point was answered")
    command = "python -m bench.history" + (" --quick" if args.quick else "")
    command += f" --model {args.model}" if args.model != MODEL else ""
    heading = (
        f"`{command}`: {sizes.repetitions} repetition(s) per point, "
        f"{time.perf_counter() - started:.0f} s; medians"
    )
    return report.finish(heading, text, before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
