"""`python -m bench.credit_sessions [--markdown FILE]`: what real agent sessions are billed
through the real Copilot 0.67 provider (issue 42).

Runs tests/test_e2e_copilot_credit_sessions.py (real Claude Code, Codex and Gemini CLI, each a
cold session of 8 model turns with 7 tool calls, then a warm session of the same agent;
code-server with Copilot 0.67 and the fake cloud of tests/fake_capi/, which caches and bills as
Anthropic and OpenAI do) and turns the bill it prints per session into a table: input at full
price, read from and written to the cache, output, reasoning, the share of the input after the
first turn read from the cache, and the AI credits at the fake cloud's prices (made up in the
providers' proportions, tests/fake_capi/catalogue.py). Takes a few minutes; needs the agents
and code-server that scripts/test installs.

`--off all,billing_header,...` also runs the sessions with the bridge's token savings switched
off (bridge/core/savings_off.py: `all`, or one saving alone), side by side with them on:
the "before" (all off) and "after" (on) of issue 42. `-k` picks agents as pytest does
(`-k claude`). With `--tools`, also the tokens each tool definition costs per request.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/test_e2e_copilot_credit_sessions.py"
AGENTS = {"claude-sonnet-4.5": "Claude Code", "gpt-5-mini": "Codex", "gemini-2.5-pro": "Gemini CLI"}


class Session(NamedTuple):
    savings: str  # "on", or the savings switched off
    model: str
    tag: str  # cold, warm
    turns: int
    full_price: int
    read: int
    written: int
    output: int
    reasoning: int
    later_read_share: float
    first_read: int


def parse(output: str, savings: str = "on") -> list[Session]:
    """The `CREDIT-SESSION model tag values...` lines the test prints."""
    sessions = []
    for line in output.splitlines():
        if not line.startswith("CREDIT-SESSION "):
            continue
        _, model, tag, *values = line.split()
        numbers = [float(v) if "." in v else int(v) for v in values]
        sessions.append(Session(savings, model, tag, *numbers))  # type: ignore[arg-type]
    return sessions


def parse_tools(output: str) -> list[tuple[str, str, int]]:
    """The `CREDIT-TOOL model name tokens` lines: what each tool costs per request."""
    found = []
    for line in output.splitlines():
        if "CREDIT-TOOL " in line:  # may follow the agent's output on one line
            _, model, name, tokens = line[line.index("CREDIT-TOOL ") :].split()
            found.append((model, name, int(tokens)))
    return found


def tools_table(tools: list[tuple[str, str, int]]) -> str:
    lines = ["| agent (model) | tool | tokens per request |", "|---|---|---|"]
    for model, name, tokens in tools:
        lines.append(f"| {AGENTS.get(model, model)} ({model}) | `{name}` | {tokens:,} |")
    return "\n".join(lines) + "\n"


def credits(session: Session) -> float | None:
    """The session's AI credits at the fake cloud's prices."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_capi.catalogue import MODELS

    found = next((m for m in MODELS if m.id == session.model), None)
    if found is None:
        return None
    nano = found.nano_credits(session.full_price, session.read, session.written, session.output)
    return None if nano is None else nano / 1e9


def table(sessions: list[Session]) -> str:
    lines = [
        "| agent (model) | savings | session | turns | full-price input | cache reads "
        "| cache writes "
        "| output | reasoning | read after turn 1 | turn 1 read | AI credits |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sorted(sessions, key=lambda s: (list(AGENTS).index(s.model), s.tag == "warm")):
        cost = credits(s)
        lines.append(
            f"| {AGENTS.get(s.model, s.model)} ({s.model}) | {s.savings} | {s.tag} | {s.turns} "
            f"| {s.full_price:,} | {s.read:,} | {s.written:,} | {s.output:,} | {s.reasoning:,} "
            f"| {s.later_read_share:.1%} | {s.first_read:,} "
            f"| {'-' if cost is None else f'{cost:.2f}'} |"
        )
    return "\n".join(lines) + "\n"


def run_sessions(savings_off: str, pick: str | None) -> str | None:
    """The test's output with `savings_off` switched off (none for "on"); None if it failed."""
    env = {k: v for k, v in os.environ.items() if k != "MAESTRO_BRIDGE_SAVINGS_OFF"}
    if savings_off != "on":
        env["MAESTRO_BRIDGE_SAVINGS_OFF"] = savings_off
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", TEST]
    run = subprocess.run(
        [*command, *(["-k", pick] if pick else [])],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode != 0 or "CREDIT-SESSION" not in run.stdout:
        print(run.stdout[-4000:], run.stderr[-2000:], file=sys.stderr)
        return None
    return run.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    parser.add_argument("--off", default="", help="savings to switch off, one run each: all,NAME")
    parser.add_argument("--no-on", action="store_true", help="skip the run with savings on")
    parser.add_argument("-k", dest="pick", help="which agents' tests (pytest -k)")
    parser.add_argument("--tools", action="store_true", help="also the tokens of each tool")
    args = parser.parse_args(argv)
    runs = ([] if args.no_on else ["on"]) + [n for n in args.off.split(",") if n]
    sessions: list[Session] = []
    tools: list[tuple[str, str, int]] = []
    for savings in runs:
        output = run_sessions(savings, args.pick)
        if output is None:
            return 1
        sessions += parse(output, savings if savings == "on" else f"{savings} off")
        tools = tools or parse_tools(output)
    text = table(sessions) + (f"\n{tools_table(tools)}" if args.tools else "")
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
