"""Token budgets and the fallback model as settings: `SCOPE=N/PERIOD` read and refused, the
periods' bounds in local time, BridgeSettings' `budgets` block and `fallbackModel` (defaults:
none), `serve`'s flags refused when malformed, and the VS Code settings that match them."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from bridge.core.budget_spec import Budget, BudgetSyntaxError, parse_budget, period_bounds
from bridge.core.editor_failures import Failure
from bridge.core.fallback import falls_back
from bridge.settings import BridgeSettings

PACKAGE_JSON = Path(__file__).resolve().parents[1] / "editor-client" / "package.json"


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("claude-code=2000000/day", Budget("client", "claude-code", "day", 2_000_000)),
        ("model:gpt-5=10000000/month", Budget("model", "gpt-5", "month", 10_000_000)),
        (" all = 5_000 / day ", Budget("all", None, "day", 5000)),
    ],
)
def test_a_budget_is_read_from_its_text(text: str, budget: Budget) -> None:
    assert parse_budget(text) == budget


@pytest.mark.parametrize(
    "text", ["claude-code", "claude-code=10", "codex=10/week", "model:=5/day", "x=0/day", "=5/day"]
)
def test_a_malformed_budget_is_refused_saying_what_is_expected(text: str) -> None:
    with pytest.raises(BudgetSyntaxError):
        parse_budget(text)


def test_periods_are_local_days_and_calendar_months() -> None:
    moment = datetime(2026, 12, 31, 23, 30).astimezone()
    start, reset = period_bounds("day", moment)
    assert (start.date().isoformat(), reset.date().isoformat()) == ("2026-12-31", "2027-01-01")
    assert reset.hour == 0 and reset.tzinfo is not None
    start, reset = period_bounds("month", datetime(2026, 2, 10, 8).astimezone())
    assert (start.date().isoformat(), reset.date().isoformat()) == ("2026-02-01", "2026-03-01")


def test_settings_have_no_budget_and_no_fallback_by_default() -> None:
    settings = BridgeSettings.from_options({})
    assert settings.budgets.budgets() == [] and settings.fallbackModel is None


def test_settings_gather_every_budget_a_later_one_replacing_an_earlier() -> None:
    settings = BridgeSettings.from_options(
        {
            "budgets": {
                "daily": 100,
                "monthly": 1000,
                "scoped": ["codex=5/day", "codex=7/day", "model:sim-echo=9/month"],
            }
        }
    )
    assert settings.budgets.budgets() == [
        Budget("all", None, "day", 100),
        Budget("all", None, "month", 1000),
        Budget("client", "codex", "day", 7),
        Budget("model", "sim-echo", "month", 9),
    ]


@pytest.mark.parametrize(
    "budgets", [{"daily": 0}, {"monthly": -5}, {"scoped": ["codex=5/year"]}, {"scoped": "x"}]
)
def test_settings_refuse_a_budget_that_cannot_be(budgets: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        BridgeSettings.from_options({"budgets": budgets})


@pytest.mark.parametrize(
    "args",
    [["--token-budget", "codex=5/week"], ["--daily-token-budget", "0"], ["--token-budget", "x"]],
)
def test_serve_refuses_a_malformed_budget_flag(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bridge.cli", "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "budget" in done.stderr


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (Failure("rate_limited", "wait"), True),
        (Failure("quota", "spent"), True),
        (Failure("upstream", "down", upstream_status=500), True),
        (Failure("upstream", "slow down", upstream_status=429), True),
        (Failure("upstream", "bad", upstream_status=400), False),
        (Failure("invalid_request", "bad tool"), False),
        (Failure("context_length", "too long"), False),
        (Failure("no_permissions", "denied"), False),
        (Failure("unavailable", "gone"), False),
    ],
)
def test_only_a_rate_limit_quota_or_server_error_falls_back(
    failure: Failure, expected: bool
) -> None:
    assert falls_back(failure) is expected


def test_the_vscode_settings_show_the_servers_defaults() -> None:
    manifest = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    props = manifest["contributes"]["configuration"]["properties"]
    for period in ("daily", "monthly"):
        prop = props[f"maestroBridge.budgets.{period}"]
        assert prop["default"] is None and prop["minimum"] == 1
        assert prop["type"] == ["integer", "null"]
    assert props["maestroBridge.budgets.scoped"]["default"] == []
    assert props["maestroBridge.fallbackModel"]["default"] == ""
