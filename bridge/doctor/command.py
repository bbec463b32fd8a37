"""`maestro-bridge doctor [--url URL] [--api-key KEY] [--json]`: every check, one report; exit
code 1 when one failed."""

from __future__ import annotations

import argparse
import os
from typing import Any


def add_doctor(sub: Any) -> None:
    doctor = sub.add_parser(
        "doctor", help="check the bridge, its key, models and tools, and each agent's configuration"
    )
    doctor.add_argument(
        "--url",
        metavar="URL",
        help="the bridge (default: $MAESTRO_BRIDGE_URL, else http://127.0.0.1:23335)",
    )
    doctor.add_argument(
        "--api-key",
        metavar="KEY",
        help="the bridge's API key (default: "
        "$MAESTRO_BRIDGE_API_KEY, else the key file `serve` writes)",
    )
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")


def run_doctor(args: argparse.Namespace) -> int:
    from bridge.doctor.agent_checks import agent_checks
    from bridge.doctor.bridge_checks import bridge_checks
    from bridge.doctor.ledger_check import ledger_check
    from bridge.doctor.report import json_report, text_report
    from bridge.run.connection import find_connection

    connection = find_connection(args.url, args.api_key)
    state = bridge_checks(connection)
    checks = [
        *state.checks,
        ledger_check(),
        *agent_checks(connection.root, state.models, os.environ),
    ]
    print(json_report(checks) if args.json else text_report(checks))
    return 1 if any(check.status == "fail" for check in checks) else 0
