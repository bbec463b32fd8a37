"""What every `configure` target prints: the changed keys, the backup, and its JSON style."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from bridge.configure.bridge_models import BridgeUnavailable, ChoiceError
from bridge.configure.config_file import Change, ConfigError


def print_outcome(configure: Callable[[], Any], as_json: bool) -> int:
    """Runs a target's `configure` and prints its outcome (a dataclass with `report` lines),
    or, as JSON, the whole outcome; a failure is one line on stderr and exit code 1."""
    try:
        outcome = configure()
    except (BridgeUnavailable, ChoiceError, ConfigError) as exc:
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(camel(asdict(outcome)), indent=2))
    else:
        print("\n".join(outcome.report))
    return 0


def shown(value: Any) -> str:
    """A value as the report prints it: JSON, `(none)` for a key that is not there."""
    return "(none)" if value is None else json.dumps(value)


def change_lines(
    path: str,
    changes: list[Change],
    *,
    dry_run: bool,
    backup: str | None,
    unchanged: str,
    show: Callable[[Change, Any], str] | None = None,
) -> list[str]:
    """`Changed PATH:` and one `key: old -> new` line per change, then what became of the
    old file; `unchanged` is the line when there is nothing to change. `show(change, value)`
    may print a value differently (a secret, redacted)."""
    if not changes:
        return [unchanged]
    show = show or (lambda _change, value: shown(value))
    lines = [f"{'Would change' if dry_run else 'Changed'} {path}:"]
    lines += [f"  {c.key}: {show(c, c.old)} -> {show(c, c.new)}" for c in changes]
    if dry_run:
        lines.append("Dry run: nothing written.")
    elif backup:
        lines.append(f"The previous file is saved as {backup}")
    else:
        lines.append("(a new file)")
    return lines


def camel(data: dict[str, Any]) -> dict[str, Any]:
    """snake_case keys as camelCase, the JSON style of the extension that reads them."""

    def one(key: str) -> str:
        head, *rest = key.split("_")
        return head + "".join(part.title() for part in rest)

    return {one(key): value for key, value in data.items()}
