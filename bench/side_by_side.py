"""`python -m bench.side_by_side [--quick]`: the Maestro Bridge and Agent Maestro side by side,
in ONE code-server host, on ONE `vscode.lm` provider (the scripted-model test extension's fast
model), with the provider called directly from the extension host as the ceiling.

Per round (the order of the servers flips every round):
- first delta of a short request (one user text) in every dialect a server takes: p50;
- first delta of a long agent history (`--history` items, bench/history.py's bodies) in every
  dialect it takes: median;
- one stream of `--parts` parts (Messages): parts/s;
- `--streams` streams at once of `--stream-parts` parts each (Messages): aggregate parts/s.
Agent Maestro runs when its VSIX is there (bench/agent_maestro.py); otherwise the run says so
and measures the other two. Every figure is the median of the rounds (min-max). Nothing asserts
speed: the `target` column reports against issue 46's targets.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import agent_maestro, report
from bench.side_client import (
    ANTHROPIC,
    Route,
    concurrent,
    encode,
    history_body,
    new_session,
    short_body,
    stream,
)
from bench.side_table import Results, record, table

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests"))  # the harness of the VS Code tests; no pytest

from vscode_harness import free_port, missing_tools, start_host, stop_host, tool_paths  # noqa: E402
from vscode_session import VSCodeHost  # noqa: E402

MODEL = "scripted-model"
PROVIDER, BRIDGE, PEER = "vscode.lm", "Maestro Bridge", "Agent Maestro"
BRIDGE_ROUTES = (
    Route("responses", "/v1/responses", {}),
    Route("messages", "/v1/messages", ANTHROPIC),
    Route("chat", "/v1/chat/completions", {}),
    Route("gemini", "/v1beta/models/{model}:streamGenerateContent?alt=sse", {}),
)
STREAM_DIALECT = "messages"  # the one every peer takes


@dataclass(frozen=True)
class Sizes:
    rounds: int
    short: int  # one-part requests, one after another
    history: int  # items of the long history
    history_requests: int  # measured requests with it (after one warm-up)
    parts: int  # one stream
    streams: int  # at once
    stream_parts: int  # parts of each of those


FULL = Sizes(
    rounds=2,
    short=200,
    history=4000,
    history_requests=5,
    parts=20_000,
    streams=64,
    stream_parts=2000,
)
QUICK = Sizes(
    rounds=1, short=3, history=40, history_requests=1, parts=200, streams=4, stream_parts=20
)


@dataclass
class Server:
    name: str
    base: str  # http://host:port
    routes: dict[str, Route]  # by dialect


def _lm(host: VSCodeHost, parts: int, requests: int, history: int = 0) -> list[dict[str, float]]:
    """The provider alone: `benchLm` in the extension host (the scripted-model extension)."""
    request = {"bench": {"parts": parts, "requests": requests, "history": history}}
    timeout = 120 + requests * 2 + parts / 200 + history / 100
    runs: list[dict[str, float]] = host.control_answer(
        host.send_control(request), request, timeout
    )["runs"]
    return runs


def measure_provider(host: VSCodeHost, sizes: Sizes, results: Results, problems: list[str]) -> None:
    short = _lm(host, 1, sizes.short)
    record(results, "short", PROVIDER, statistics.median(r["firstMs"] for r in short))
    long = _lm(host, 1, sizes.history_requests + 1, sizes.history)[1:]
    record(results, "history", PROVIDER, statistics.median(r["firstMs"] for r in long))
    [one] = _lm(host, sizes.parts, 1)
    if one["parts"] != sizes.parts:
        problems.append(f"vscode.lm: {one['parts']} of {sizes.parts} parts")
    record(results, "stream", PROVIDER, sizes.parts / (one["totalMs"] / 1000))


async def _measure_server(
    server: Server, sizes: Sizes, results: Results, problems: list[str]
) -> None:
    async with new_session() as session:
        for dialect, route in server.routes.items():
            data = encode(short_body(dialect, MODEL, "[bench 1]"))
            runs = [
                await stream(session, server.base, route, MODEL, data, 1)
                for _ in range(sizes.short)
            ]
            problems += [f"{server.name}: {r.error}" for r in runs if not r.ok][:3]
            record(
                results,
                f"short {dialect}",
                server.name,
                1000 * statistics.median(r.first for r in runs),
            )
            data = encode(history_body(dialect, MODEL, sizes.history))
            runs = [
                await stream(session, server.base, route, MODEL, data, 1)
                for _ in range(sizes.history_requests + 1)
            ][1:]
            problems += [f"{server.name} history: {r.error}" for r in runs if not r.ok][:3]
            record(
                results,
                f"history {dialect}",
                server.name,
                1000 * statistics.median(r.first for r in runs),
            )
        route = server.routes[STREAM_DIALECT]
        data = encode(short_body(STREAM_DIALECT, MODEL, f"[bench {sizes.parts}]"))
        one = await stream(session, server.base, route, MODEL, data, sizes.parts)
        if not one.ok:
            problems.append(f"{server.name} stream: {one.error}")
        record(results, "stream", server.name, sizes.parts / one.total if one.total else 0.0)
    wall, many = await concurrent(server.base, route, MODEL, sizes.streams, sizes.stream_parts)
    failed = [r for r in many if not r.ok]
    problems += [f"{server.name} {sizes.streams} streams: {r.error}" for r in failed][:3]
    record(results, "concurrent", server.name, sizes.streams * sizes.stream_parts / wall)


async def _supported(server: Server, problems: list[str], log: Callable[[str], None]) -> None:
    """Drops the routes a server does not answer (a peer without that dialect)."""
    async with new_session() as session:
        for dialect, route in list(server.routes.items()):
            data = encode(short_body(dialect, MODEL, "[bench 1]"))
            result = await stream(session, server.base, route, MODEL, data, 1)
            if not result.ok:
                log(f"{server.name} leaves out {dialect}: {result.error}")
                del server.routes[dialect]
    if STREAM_DIALECT not in server.routes:
        problems.append(f"{server.name} does not answer {STREAM_DIALECT}")


def _server_step(
    server: Server, sizes: Sizes, results: Results, problems: list[str]
) -> Callable[[], None]:
    return lambda: asyncio.run(_measure_server(server, sizes, results, problems))


def run_rounds(
    host: VSCodeHost, servers: list[Server], sizes: Sizes, log: Callable[[str], None]
) -> tuple[Results, list[str]]:
    results: Results = {}
    problems: list[str] = []
    for server in servers:
        asyncio.run(_supported(server, problems, log))
    servers = [s for s in servers if STREAM_DIALECT in s.routes]
    warm = dataclasses.replace(
        sizes,
        short=3,
        history=min(sizes.history, 200),
        history_requests=1,
        parts=500,
        streams=2,
        stream_parts=10,
    )
    measure_provider(host, warm, {}, [])
    for server in servers:
        asyncio.run(_measure_server(server, warm, {}, []))
    for index in range(sizes.rounds):
        steps: list[tuple[str, Callable[[], None]]] = [
            (PROVIDER, lambda: measure_provider(host, sizes, results, problems))
        ]
        steps += [(s.name, _server_step(s, sizes, results, problems)) for s in servers]
        if index % 2:
            steps.reverse()
        for name, step in steps:
            log(f"round {index + 1} of {sizes.rounds}: {name}")
            step()
    return results, problems


def run(sizes: Sizes, log: Callable[[str], None]) -> tuple[str, list[str]]:
    missing = missing_tools(tool_paths())
    if missing:
        raise SystemExit(f"python -m bench.side_by_side needs: {missing}")
    peer_vsix = agent_maestro.vsix()
    notes = [] if peer_vsix else [agent_maestro.missing_message()]
    if not peer_vsix:
        log(notes[0])
    peer_port = free_port()
    settings = {"maestroBridge.logLevel": "info", agent_maestro.PORT_SETTING: peer_port}
    with tempfile.TemporaryDirectory(prefix="bench-side-") as workdir:
        log("starting code-server, Chromium and the extension host")
        host = start_host(
            tool_paths(), Path(workdir), settings, extra_vsixes=(peer_vsix,) if peer_vsix else ()
        )
        try:
            servers = [
                Server(
                    BRIDGE, host.base_url.removesuffix("/v1"), {r.dialect: r for r in BRIDGE_ROUTES}
                )
            ]
            if peer_vsix:
                try:
                    host.wait_for(
                        lambda: agent_maestro.listening(peer_port), 120, "Agent Maestro's server"
                    )
                    servers.append(
                        Server(
                            PEER,
                            f"http://127.0.0.1:{peer_port}",
                            {r.dialect: r for r in agent_maestro.ROUTES},
                        )
                    )
                except AssertionError as exc:
                    notes.append(f"Agent Maestro did not come up: {exc}"[:500])
            results, problems = run_rounds(host, servers, sizes, log)
        finally:
            left = stop_host(host)
        if left:
            problems.append(f"language servers outlived VS Code (killed): {left}")
    return table(results, sizes, [PROVIDER, PEER, BRIDGE], notes), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.side_by_side", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one round (smoke run)")
    for name, what in (
        ("rounds", "rounds"),
        ("short", "one-part requests per dialect"),
        ("history", "items of the long history"),
        ("history-requests", "requests with it, after a warm-up"),
        ("parts", "parts of the one stream"),
        ("streams", "streams at once"),
        ("stream-parts", "parts of each of those"),
    ):
        key = name.replace("-", "_")
        parser.add_argument(f"--{name}", type=int, help=f"{what} (default {getattr(FULL, key):,})")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = parser.parse_args(argv)
    sizes = QUICK if args.quick else FULL
    for field in dataclasses.fields(Sizes):
        if getattr(args, field.name):
            sizes = dataclasses.replace(sizes, **{field.name: getattr(args, field.name)})
    before, started = report.machine(), time.perf_counter()
    text, problems = run(sizes, report.log)
    command = "python -m bench.side_by_side " + " ".join(argv if argv is not None else sys.argv[1:])
    took = time.perf_counter() - started
    heading = f"`{command.strip()}`: {sizes.rounds} round(s), {took:.0f} s; median (min-max)"
    return report.finish(heading, f"{text}\n", before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
