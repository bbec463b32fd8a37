"""What every `configure` target prints: the changed keys, the backup, and its JSON style."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
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


REDACTED = "(redacted)"


def shown(value: Any) -> str:
    """A value as the report prints it: JSON, `(none)` for a key that is not there."""
    return "(none)" if value is None else json.dumps(value)


@dataclass(frozen=True)
class Secret:
    """The key a target writes (a token, an API key): the report never shows its value,
    except `placeholder`, ours, written when the bridge wants no key."""

    key: str  # the `Change.key` that holds it
    placeholder: str

    def hide(self, change: Change, value: Any) -> Any:
        """A value as the JSON outcome lists it."""
        if change.key != self.key or value is None or value == self.placeholder:
            return value
        return REDACTED

    def show(self, change: Change, value: Any) -> str:
        """A value as the report prints it (`show` of `change_lines`)."""
        hidden = self.hide(change, value)
        return hidden if hidden == REDACTED else shown(value)

    def changes(self, changes: list[Change]) -> list[dict[str, Any]]:
        """The JSON outcome's `changes`."""
        return [
            {"key": c.key, "old": self.hide(c, c.old), "new": self.hide(c, c.new)} for c in changes
        ]


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
