"""docs/reference/cli.md: every `maestro-bridge` subcommand and flag, from the argparse parsers
the command itself uses (`bridge.cli._parser`)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from scripts.reference.markdown import NOTICE, table

# Defaults read from the environment when the parser is built; the page shows none of the
# generating machine's values (the help text names the variable).
ENVIRONMENT_DEFAULTS = ("MAESTRO_BRIDGE_API_KEY",)


def parser() -> argparse.ArgumentParser:
    from bridge.cli import _parser

    clean = {key: value for key, value in os.environ.items() if key not in ENVIRONMENT_DEFAULTS}
    with mock.patch.dict(os.environ, clean, clear=True):
        return _parser()


def commands(
    command: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    """(words after `maestro-bridge`, help, parser) of every subcommand, depth first."""
    for action in command._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            own = (*words, name)
            yield own, helps.get(name, ""), sub
            yield from commands(sub, own)


def render(root: Path) -> str:
    top = parser()
    lines = [
        NOTICE,
        "",
        "# Command line",
        "",
        "Every `maestro-bridge` command and option, from the parsers the command uses "
        "(`maestro-bridge COMMAND --help` prints the same). What the commands are for: "
        "[Getting started: the command line](../getting-started/command-line.md).",
    ]
    for words, help_text, sub in commands(top):
        options = _rows(sub)
        lines += [
            "",
            f"## `maestro-bridge {' '.join(words)}`",
            "",
            help_text[:1].upper() + help_text[1:] + ".",
        ]
        if any(isinstance(a, argparse._SubParsersAction) for a in sub._actions):
            continue
        if options:
            lines += ["", *table(["option", "default", "meaning"], options)]
        else:
            lines += ["", "No options."]
    return "\n".join(lines) + "\n"


def _rows(command: argparse.ArgumentParser) -> list[list[str]]:
    formatter = command._get_formatter()
    rows = []
    for action in command._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        names = ", ".join(_invocation(action, name) for name in action.option_strings)
        help_text = _plain(formatter._expand_help(action)) if action.help else ""
        if isinstance(action, argparse._AppendAction):
            help_text += " (repeatable)" if "repeatable" not in help_text else ""
        rows.append([names, _default(action), help_text])
    return rows


def _plain(text: str) -> str:
    """Help text as Markdown shows it: `*`, `_`, `<`, `[` and `]` escaped outside `code`."""
    pieces = text.split("`")
    for index in range(0, len(pieces), 2):  # the even pieces are outside backticks
        pieces[index] = re.sub(r"([*_<>\[\]])", r"\\\1", pieces[index])
    return "`".join(pieces)


def _invocation(action: argparse.Action, name: str) -> str:
    if action.nargs == 0:
        return f"`{name}`"
    metavar = action.metavar or action.dest.upper()
    return f"`{name} {metavar}`"


def _default(action: argparse.Action) -> str:
    value = action.default
    if action.nargs == 0:
        return "off" if not value else "on"
    if value is None or value == [] or value is argparse.SUPPRESS:
        return "—"  # none, or the setting's default, which the help text gives
    return f"`{value}`"
