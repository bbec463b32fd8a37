"""A check's outcome, and the report: one line per check, what to do when it fails."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Literal

Status = Literal["ok", "warn", "fail", "info"]
_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL", "info": "info"}


@dataclass(frozen=True)
class Check:
    name: str  # "bridge", "key", "models", "agent codex", ...
    status: Status
    detail: str
    fix: str = ""  # what to do about it (empty when nothing is to be done)


def text_report(checks: list[Check]) -> str:
    lines = []
    for check in checks:
        line = f"[{_MARK[check.status]}] {check.name}: {check.detail}"
        if check.fix:
            line += f" -> {check.fix}"
        lines.append(line)
    failed = sum(check.status == "fail" for check in checks)
    warned = sum(check.status == "warn" for check in checks)
    lines.append(
        "All checks passed."
        if not failed and not warned
        else f"{failed} failed, {warned} to look at."
    )
    return "\n".join(lines)


def json_report(checks: list[Check]) -> str:
    ok = not any(check.status == "fail" for check in checks)
    return json.dumps({"ok": ok, "checks": [asdict(check) for check in checks]}, indent=2)
