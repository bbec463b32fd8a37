"""`python -m bench.copilot_overhead [--quick]`: what the bridge adds to the first delta over
calling `vscode.lm` directly, through the real GitHub Copilot provider, per dialect.

One code-server host runs Copilot Chat 0.67 signed in against tests/fake_capi (a FAKE of
Copilot's cloud, which answers at once: the real cloud cannot be reached here), the Maestro
Bridge and the scripted-model test extension (tests/copilot_host.py). Per Copilot model (one
per API Copilot calls upstream: Chat Completions, Responses, Messages), the contenders take
turns in blocks (bench/side_measure.py): the scripted-model extension asking the model through
`vscode.lm` from inside the extension host (`benchLm`), and an HTTP client asking the bridge in
each dialect. The figure is the p50 of the time to the first text; "added" is the bridge's minus
vscode.lm's, per round. Nothing asserts speed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import report
from bench.side_by_side import BRIDGE_ROUTES
from bench.side_measure import Contender, Provider, Server, one_round
from bench.side_table import Results

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests"))  # the harness of the VS Code tests

from copilot_host import running_copilot_host  # noqa: E402
from fake_capi import FakeCapi  # noqa: E402
from vscode_harness import missing_tools, tool_paths  # noqa: E402
from vscode_session import VSCodeHost  # noqa: E402

# One model per API Copilot 0.67 calls upstream for it (tests/fake_capi/catalogue.py).
MODELS = ("gpt-4.1", "gpt-5-mini", "claude-sonnet-4.5")
TEXT = "Say hello."
DIRECT = "vscode.lm"


@dataclass(frozen=True)
class Sizes:
    rounds: int
    short: int
    history: int = 0
    history_requests: int = 0
    parts: int = 0
    streams: int = 0
    stream_parts: int = 0


def _provider(host: VSCodeHost, model: str) -> Provider:
    def ask(bench: dict[str, Any]) -> list[dict[str, float]]:
        request = {"bench": {**bench, "vendor": "copilot", "id": model, "text": TEXT}}
        answer = host.control_answer(host.send_control(request), request, 120 + bench["requests"])
        runs: list[dict[str, float]] = answer["runs"]
        return runs

    return Provider(f"{DIRECT} {model}", ask)


def measure(
    host: VSCodeHost, sizes: Sizes, log: Callable[[str], None]
) -> tuple[Results, list[str]]:
    results: Results = {}
    problems: list[str] = []
    base = host.base_url.removesuffix("/v1")
    for model in MODELS:
        routes = {r.dialect: r for r in BRIDGE_ROUTES}
        contenders: list[Contender] = [
            _provider(host, model),
            Server(f"bridge {model}", base, routes, model=model, text=TEXT, counted=False),
        ]
        log(f"{model}: warming up")
        asyncio.run(one_round(contenders, replace(sizes, short=2), False, {}, []))
        for index in range(sizes.rounds):
            log(f"{model}: round {index + 1} of {sizes.rounds}")
            asyncio.run(one_round(contenders, sizes, bool(index % 2), results, problems))
    return results, problems


def _fmt(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def table(results: Results, sizes: Sizes) -> str:
    lines = [
        f"| Copilot model | dialect | vscode.lm, p50 of {sizes.short} (ms) | bridge, p50 (ms) "
        "| added (ms) | bridge / vscode.lm |",
        "|---|---|---|---|---|---|",
    ]
    for model in MODELS:
        direct = results.get("short", {}).get(f"{DIRECT} {model}", [])
        for route in BRIDGE_ROUTES:
            bridge = results.get(f"short {route.dialect}", {}).get(f"bridge {model}", [])
            if not direct or not bridge:
                continue
            added = [b - d for b, d in zip(bridge, direct, strict=False)]
            ratio = statistics.median(bridge) / statistics.median(direct)
            lines.append(
                f"| {model} | {route.dialect} | {_fmt(direct)} | {_fmt(bridge)} "
                f"| {_fmt(added)} | {ratio:.2f} |"
            )
    return "\n".join(lines)


def run(sizes: Sizes, log: Callable[[str], None]) -> tuple[str, list[str]]:
    missing = missing_tools(tool_paths())
    if missing:
        raise SystemExit(f"python -m bench.copilot_overhead needs: {missing}")
    with FakeCapi() as capi, tempfile.TemporaryDirectory(prefix="bench-copilot-") as workdir:
        log("starting code-server with Copilot Chat against the fake cloud")
        settings = {"maestroBridge.logLevel": "info"}
        with running_copilot_host(Path(workdir), capi, settings) as host:
            results, problems = measure(host, sizes, log)
    return table(results, sizes), problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.copilot_overhead", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a few requests, one round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds (default 2)")
    parser.add_argument("--requests", type=int, default=60, help="per dialect and round")
    parser.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    args = parser.parse_args(argv)
    sizes = Sizes(1, 3) if args.quick else Sizes(args.rounds, args.requests)
    before, started = report.machine(), time.perf_counter()
    text, problems = run(sizes, report.log)
    command = "python -m bench.copilot_overhead " + " ".join(argv or sys.argv[1:])
    took = time.perf_counter() - started
    heading = f"`{command.strip()}`: {sizes.rounds} round(s), {took:.0f} s; median (min-max)"
    return report.finish(heading, f"{text}\n", before, problems, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
