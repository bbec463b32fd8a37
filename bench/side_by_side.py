"""`python -m bench.side_by_side [--quick]`: the Maestro Bridge and Agent Maestro side by side,
in ONE code-server host, on ONE `vscode.lm` provider (the scripted-model test extension's fast
model), with the provider called directly from the extension host as the ceiling.

Per round, the contenders taking turns in small blocks (bench/side_measure.py):
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
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import agent_maestro, report
from bench.side_client import ANTHROPIC, Route, encode, new_session, short_body, stream
from bench.side_measure import MODEL, STREAM_DIALECT, Contender, Provider, Server, one_round
from bench.side_table import Results, table

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests"))  # the harness of the VS Code tests; no pytest

from vscode_harness import free_port, missing_tools, start_host, stop_host, tool_paths  # noqa: E402
from vscode_session import VSCodeHost  # noqa: E402

PROVIDER, BRIDGE, PEER = "vscode.lm", "Maestro Bridge", "Agent Maestro"
BRIDGE_ROUTES = (
    Route("responses", "/v1/responses", {}),
    Route("messages", "/v1/messages", ANTHROPIC),
    Route("chat", "/v1/chat/completions", {}),
    Route("gemini", "/v1beta/models/{model}:streamGenerateContent?alt=sse", {}),
)


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


def _provider(host: VSCodeHost) -> Provider:
    def ask(bench: dict[str, Any]) -> list[dict[str, float]]:
        request = {"bench": bench}
        timeout = 120 + bench["requests"] * 2 + bench["parts"] / 200 + bench["history"] / 100
        answer = host.control_answer(host.send_control(request), request, timeout)
        runs: list[dict[str, float]] = answer["runs"]
        return runs

    return Provider(PROVIDER, ask)


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
        problems.append(f"{server.name} does not answer {STREAM_DIALECT}: left out")


def run_rounds(
    host: VSCodeHost, servers: list[Server], sizes: Sizes, log: Callable[[str], None]
) -> tuple[Results, list[str]]:
    results: Results = {}
    problems: list[str] = []
    for server in servers:
        asyncio.run(_supported(server, problems, log))
    contenders: list[Contender] = [_provider(host)]
    contenders += [s for s in servers if STREAM_DIALECT in s.routes]
    warm = dataclasses.replace(
        sizes, short=3, history=min(sizes.history, 200), history_requests=1, parts=500
    )
    warm = dataclasses.replace(warm, streams=2, stream_parts=10)
    log("warming up (the first requests of a fresh host load code on every path)")
    asyncio.run(one_round(contenders, warm, False, {}, []))
    for index in range(sizes.rounds):
        log(f"round {index + 1} of {sizes.rounds}")
        asyncio.run(one_round(contenders, sizes, bool(index % 2), results, problems))
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
