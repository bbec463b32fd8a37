"""The ledger on the command line: `serve`'s options for it, and `maestro-bridge usage`,
which prints the same tables as `GET /v1/usage` from the file, no bridge running."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from bridge.usage.queries import COUNTS, DEFAULT_DAYS, Span, read_summary

# The tables' columns: the counts, then the AI credits (known rows' sum; `?` rows unpriced).
TABLE_COLUMNS = (*COUNTS, "credits")


def _whole_days(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _iso_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO date (YYYY-MM-DD)") from None


def _credit_rate(text: str) -> tuple[str, dict[str, float]]:
    """`MODEL=IN/OUT[/READ[/WRITE]]`: AI credits per million tokens (docs/credits.md)."""
    model, sep, prices = text.partition("=")
    numbers = prices.split("/")
    try:
        values = [float(n) for n in numbers]
    except ValueError:
        values = []
    if not sep or not model or not 2 <= len(values) <= 4 or any(not v >= 0 for v in values):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not MODEL=INPUT/OUTPUT[/CACHE_READ[/CACHE_WRITE]] (credits per 1M tokens)"
        )
    names = ("input", "output", "cacheRead", "cacheWrite")
    return model, dict(zip(names, values, strict=False))


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--usage-db",
        metavar="PATH",
        help="the usage ledger's SQLite file, shared by every bridge ('none': record nothing; "
        "default: the user's state folder, see docs/usage.md)",
    )
    serve.add_argument(
        "--usage-retention-days",
        type=_whole_days,
        metavar="DAYS",
        help="forget ledger rows older than this when a bridge starts (default 400)",
    )
    serve.add_argument(
        "--credit-rate",
        type=_credit_rate,
        action="append",
        metavar="MODEL=IN/OUT[/READ[/WRITE]]",
        help="a model's AI credits per million tokens of input, output, cache reads and cache "
        "writes, for the ledger's credits estimate where the editor states no prices "
        "(repeatable; docs/credits.md)",
    )


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `usage` settings the flags set (bridge/settings.py, UsageSettings)."""
    usage: dict[str, Any] = {}
    if args.usage_db is not None:
        usage["database"] = args.usage_db
    if args.usage_retention_days is not None:
        usage["retentionDays"] = args.usage_retention_days
    if args.credit_rate:
        usage["creditRates"] = dict(args.credit_rate)
    return {"usage": usage}


def add_usage_command(sub: Any) -> None:
    usage = sub.add_parser(
        "usage", help="print the tokens agents spent through the bridge (the usage ledger)"
    )
    usage.add_argument("--json", action="store_true", help="print GET /v1/usage's JSON")
    usage.add_argument(
        "--since", type=_iso_day, metavar="DATE", help=f"first day (default: {DEFAULT_DAYS} ago)"
    )
    usage.add_argument("--until", type=_iso_day, metavar="DATE", help="last day (default today)")
    usage.add_argument("--usage-db", metavar="PATH", help="the ledger's file (default as serve)")


def _shown(value: object) -> str:
    """A cell as text a terminal prints as is: an unknown tool's name is whatever a client
    sent, so control characters (escape sequences among them) are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(value))


def _table(
    title: str, key: str, rows: list[dict[str, Any]], counts: tuple[str, ...] = TABLE_COLUMNS
) -> list[str]:
    header = [key, *counts]
    cells = [[_cell(row, name) for name in header] for row in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]

    def line(values: list[str]) -> str:
        first = values[0].ljust(widths[0])
        return "  ".join(
            [first, *(v.rjust(w) for v, w in zip(values[1:], widths[1:], strict=True))]
        )

    return [title, line(header), *(line(c) for c in cells), ""]


def _cell(row: dict[str, Any], name: str) -> str:
    if name != "credits":
        return _shown(row[name])
    # Credits: two decimals; `+?` when some rows' model has no known price.
    return f"{row['credits']:.2f}" + ("+?" if row.get("credits_unknown") else "")


def _credits_line(totals: dict[str, Any]) -> str:
    known, reported, unknown = (
        totals["credits"],
        totals["credits_reported"],
        totals["credits_unknown"],
    )
    line = f"  AI credits {known:.2f} ({reported:.2f} reported by Copilot, the rest estimated"
    line += f" from the models' prices); {unknown} requests of unknown price" if unknown else ")"
    return line


def render(body: dict[str, Any]) -> str:
    totals = body["totals"]
    p50, p95 = totals["first_token_ms_p50"], totals["first_token_ms_p95"]
    lines = [
        f"Usage from {body['since']} to {body['until']}",
        f"  {totals['requests']} requests, {totals['errors']} failed",
        f"  input {totals['input_tokens']} tokens ({totals['cached_tokens']} read from the "
        f"cache, {totals['cache_hit_ratio']:.0%}; {totals['cache_write_tokens']} written to it), "
        f"output {totals['output_tokens']} ({totals['reasoning_tokens']} reasoning)",
        _credits_line(totals),
        "  first token: " + ("-" if p50 is None else f"p50 {p50:g} ms, p95 {p95:g} ms"),
        "",
    ]
    lines += _table("By client", "client", body["by_client"])
    lines += _table("By model", "model", body["by_model"])
    lines += _table("By day", "day", body["by_day"])
    tools = body["tools"]
    lines += [f"Editor tools: {tools['calls']} calls, {tools['errors']} failed", ""]
    if tools["by_tool"]:
        lines += _table("By tool", "tool", tools["by_tool"], ("calls", "errors", "p50_ms"))
    return "\n".join(lines)


def run_usage(args: argparse.Namespace) -> int:
    import sqlite3  # imported by the command that reads the file (not by `serve`'s options)

    from bridge.settings import UsageSettings
    from bridge.usage.location import ledger_path

    path = ledger_path(UsageSettings(database=args.usage_db or ""))
    if path is None:
        print("maestro-bridge: the usage ledger is off ('--usage-db none')", file=sys.stderr)
        return 2
    last = Span.last_days(DEFAULT_DAYS, args.until)
    span = Span(args.since or last.since, args.until or last.until)
    if span.since > span.until:
        print(f"maestro-bridge: --since {span.since} is after {span.until}", file=sys.stderr)
        return 2
    try:
        body = read_summary(Path(path), span, recent=0 if not args.json else 20)
    except sqlite3.Error as exc:
        print(f"maestro-bridge: cannot read the usage ledger {path}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(body, indent=2) if args.json else render(body))
    return 0
