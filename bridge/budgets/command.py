"""`serve`'s options for token budgets (bridge/settings.py, BudgetSettings)."""

from __future__ import annotations

import argparse
from typing import Any

from bridge.core.budget_spec import BudgetSyntaxError, parse_budget


def _tokens(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1 token")
    return value


def _budget(text: str) -> str:
    try:
        parse_budget(text)
    except BudgetSyntaxError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--daily-token-budget",
        type=_tokens,
        metavar="N",
        help="refuse requests (429 budget_exceeded) once agents used N input + output tokens "
        "today (local day, every bridge sharing the usage ledger; default: no budget)",
    )
    serve.add_argument(
        "--monthly-token-budget",
        type=_tokens,
        metavar="N",
        help="the same per calendar month (default: no budget)",
    )
    serve.add_argument(
        "--token-budget",
        type=_budget,
        action="append",
        default=[],
        metavar="SCOPE=N/PERIOD",
        help="a budget of one client (claude-code=2000000/day) or one editor model "
        "(model:gpt-5=10000000/month); PERIOD day or month (repeatable)",
    )


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The `budgets` settings the flags set."""
    budgets: dict[str, Any] = {"scoped": list(args.token_budget)}
    if args.daily_token_budget is not None:
        budgets["daily"] = args.daily_token_budget
    if args.monthly_token_budget is not None:
        budgets["monthly"] = args.monthly_token_budget
    return {"budgets": budgets}
