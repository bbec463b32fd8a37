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
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/test_e2e_copilot_credit_sessions.py"
AGENTS = {"claude-sonnet-4.5": "Claude Code", "gpt-5-mini": "Codex", "gemini-2.5-pro": "Gemini CLI"}


class Session(NamedTuple):
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


def parse(output: str) -> list[Session]:
    """The `CREDIT-SESSION model tag values...` lines the test prints."""
    sessions = []
    for line in output.splitlines():
        if not line.startswith("CREDIT-SESSION "):
            continue
        _, model, tag, *values = line.split()
        numbers = [float(v) if "." in v else int(v) for v in values]
        sessions.append(Session(model, tag, *numbers))  # type: ignore[arg-type]
    return sessions


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
        "| agent (model) | session | turns | full-price input | cache reads | cache writes "
        "| output | reasoning | read after turn 1 | turn 1 read | AI credits |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sessions:
        cost = credits(s)
        lines.append(
            f"| {AGENTS.get(s.model, s.model)} ({s.model}) | {s.tag} | {s.turns} "
            f"| {s.full_price:,} | {s.read:,} | {s.written:,} | {s.output:,} | {s.reasoning:,} "
            f"| {s.later_read_share:.1%} | {s.first_read:,} "
            f"| {'-' if cost is None else f'{cost:.2f}'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", TEST],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    sessions = parse(run.stdout)
    if run.returncode != 0 or not sessions:
        print(run.stdout[-4000:], run.stderr[-2000:], file=sys.stderr)
        return 1
    text = table(sessions)
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
