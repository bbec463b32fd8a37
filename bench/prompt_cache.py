"""`python -m bench.prompt_cache [--turns N] [--markdown FILE]`: how much of each turn's input
a provider's prompt cache could serve, per dialect (issue 29).

Starts a bridge (`maestro-bridge serve`, the simulated models), replays the agent sessions of
bench/cache_sessions.py (shaped after the captured Codex, Claude Code, Aider and Gemini CLI
requests) for `--turns` turns each, and reads the cached tokens the client is sent in its
dialect's usage. The simulated models report as cached the longest common prefix, in tokens,
with a recent request to the model (headless_editor/prompt_cache.py), exactly to the token
(MAESTRO_SIM_EXACT_CACHE: by default they bill as the providers do, cache_billing.py); a real
provider caches in blocks, so its figure is a little lower. `--varied`: the turns also
change what agents change between requests (a required tool call, a structured answer, system
text added mid-session; bench/cache_sessions.py). Nothing here asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys

import aiohttp

from bench import report, servers
from bench.cache_sessions import DIALECTS, SESSIONS, Usage, varied_session
from headless_editor.cache_billing import EXACT_ENV

CLIENTS = {"responses": "Codex", "messages": "Claude Code", "chat": "Aider", "gemini": "Gemini CLI"}
DEFAULT_TURNS = 8


async def _session(url: str, dialect: str, turns: int, varied: bool) -> list[Usage]:
    session = varied_session(dialect) if varied else SESSIONS[dialect]()
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        return [await session.turn(http, url, number) for number in range(1, turns + 1)]


def ratios(usages: list[Usage]) -> list[float]:
    """Each later turn's cached tokens over the previous turn's whole input."""
    return [
        this.cached_tokens / previous.input_tokens
        for previous, this in itertools.pairwise(usages)
        if previous.input_tokens
    ]


def table(results: dict[str, list[Usage]]) -> str:
    lines = [
        "| dialect | client shape | turns | input, first -> last turn | cached / previous "
        "turn's input: median (min) | cached / all input after turn 1 |",
        "|---|---|---|---|---|---|",
    ]
    for dialect, usages in results.items():
        found = ratios(usages)
        later = usages[1:]
        overall = sum(u.cached_tokens for u in later) / max(1, sum(u.input_tokens for u in later))
        lines.append(
            f"| {dialect} | {CLIENTS[dialect]} | {len(usages)} | "
            f"{usages[0].input_tokens} -> {usages[-1].input_tokens} | "
            f"{statistics.median(found):.3f} ({min(found):.3f}) | {overall:.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prompt_cache", description=__doc__)
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS, help="turns per session (>= 2)")
    parser.add_argument("--dialects", default=",".join(DIALECTS))
    parser.add_argument(
        "--varied",
        action="store_true",
        help="turns also require a tool call, ask for a structured answer or add system text",
    )
    parser.add_argument("--markdown", help="also write the report to this file")
    args = parser.parse_args(argv)
    dialects = [d for d in args.dialects.split(",") if d]
    if args.turns < 2 or not set(dialects) <= set(DIALECTS):
        parser.error(f"--turns is at least 2; --dialects among {', '.join(DIALECTS)}")
    before = report.machine()
    os.environ[EXACT_ENV] = "1"  # the server inherits it: the exact prefix, not the billing
    server = servers.start("bridge", "bridge")
    problems: list[str] = []
    results: dict[str, list[Usage]] = {}
    try:
        for dialect in dialects:
            report.log(f"{dialect}: {args.turns} turns")
            try:
                results[dialect] = asyncio.run(
                    _session(server.url, dialect, args.turns, args.varied)
                )
            except Exception as exc:
                problems.append(f"{dialect}: {exc}")
    finally:
        server.stop()
    heading = "# Prompt cache: cached input per turn, per dialect" + (
        " (varied turns)" if args.varied else ""
    )
    return report.finish(heading, table(results), before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
