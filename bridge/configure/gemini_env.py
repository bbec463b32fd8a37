"""Our variables in Gemini CLI's `~/.gemini/.env`: reading it as Gemini CLI does, and
merging them in.

Gemini CLI 0.61.0 loads that file with the `dotenv` package, whose parser is one regular
expression over the whole text (an entry's quoted value may span lines; the last entry of a
name wins). `DOTENV_ENTRY` is that expression, so this module finds the entries Gemini CLI
finds, and nothing inside another entry's quoted value.

Only these names are ours: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, GEMINI_MODEL. The first
entry of each is replaced in place (its `export ` prefix kept), later ones removed, missing
ones appended; every other line (comments, blank lines, other variables) stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bridge.configure.config_file import Change, ConfigError

# An entry as dotenv 16 (BSD-2-Clause) reads one, the same grammar as its LINE expression:
# the value is a quoted string (which may span lines) or the rest of the line up to a `#`.
DOTENV_ENTRY = re.compile(
    r"""
    ^ [\s\ufeff]* (?:export\s+)?          # JavaScript's \s also takes a byte order mark
    ([\w.-]+)                          # 1: the name
    (\s*=\s*? | :\s+?)                 # 2: `=` or `: `
    (                                  # 3: the value
        \s*'(?:\\'|[^'])*' | \s*"(?:\\"|[^"])*" | \s*`(?:\\`|[^`])*`
        | [^\#\r\n]+
    )?
    \s* (?:\#.*)? $
    """,
    re.MULTILINE | re.VERBOSE,
)
_INDENT = re.compile(r"[ \t\ufeff]*")  # kept as it is when an entry is replaced
_QUOTED = re.compile(r"^(['\"`])([\s\S]*)\1$", re.MULTILINE)
# Written without quotes: what dotenv reads back unchanged (no `#`, quote or outer blank).
_BARE = re.compile(r"[\w./:@+=,~%-]+")


def parse_dotenv(text: str) -> dict[str, str]:
    """The variables dotenv reads from `text` (the last entry of a name wins)."""
    return {entry.name: entry.value for entry in _entries(_unix(text))}


def _unix(text: str) -> str:
    return re.sub(r"\r\n?", "\n", text)


@dataclass(frozen=True)
class _Entry:
    name: str
    value: str  # as dotenv reads it
    start: int  # the entry's lines in the text: from the name's line (after its indent)
    end: int  # to the end of the value's line (before its line break)
    comment: str  # a `# ...` after the value on that line, else ""


def _entries(text: str) -> list[_Entry]:
    """Each entry of `text` (with `\\n` line breaks), in order."""
    found = []
    for match in DOTENV_ENTRY.finditer(text):
        raw = (match.group(3) or "").strip()
        value = _QUOTED.sub(r"\2", raw)
        if raw.startswith('"'):
            value = value.replace("\\n", "\n").replace("\\r", "\r")
        # From the start of the name's line to the end of the value's line: dotenv's
        # trailing `\s*(?:#.*)?` may reach into the following lines, which are not ours.
        start = text.rfind("\n", 0, match.start(1)) + 1
        start = _INDENT.match(text, start).end()  # type: ignore[union-attr]  # always matches
        value_end = match.end(3) if match.group(3) is not None else match.end(2)
        end = text.find("\n", value_end)
        end = len(text) if end < 0 else end
        tail = text[value_end:end].strip()
        comment = tail if tail.startswith("#") else ""
        found.append(_Entry(match.group(1), value, start, end, comment))
    return found


def dotenv_value(value: str) -> str:
    """`value` as dotenv reads it back exactly: bare when it can be, else quoted."""
    if _BARE.fullmatch(value):
        return value
    if "\n" in value or "\r" in value or value.endswith("\\"):
        raise ConfigError(f"the value {value!r} cannot be written into a .env file")
    for quote in ("'", '"', "`"):
        if quote not in value and not (quote == '"' and ("\\n" in value or "\\r" in value)):
            return f"{quote}{value}{quote}"
    raise ConfigError(f"the value {value!r} cannot be written into a .env file")


def merge_env(text: str, values: Mapping[str, str]) -> tuple[str, list[Change]]:
    """`text` (a .env file, possibly empty) with `values` set; and what changed."""
    crlf = "\r\n" in text
    source = _unix(text)
    old = parse_dotenv(source)
    changes = [Change(key, old.get(key), value) for key, value in values.items()]
    changes = [change for change in changes if change.old != change.new]
    if not changes:
        return text, []

    pieces: list[str] = []
    position = 0
    placed: set[str] = set()
    for entry in _entries(source):
        key, end = entry.name, entry.end
        if key not in values:
            continue
        pieces.append(source[position : entry.start])
        if key in placed:  # a later entry of ours: removed, with its line break
            end = end + 1 if source[end : end + 1] == "\n" else end
        else:
            prefix = "export " if source[entry.start : end].lstrip().startswith("export") else ""
            comment = f" {entry.comment}" if entry.comment else ""
            pieces.append(f"{prefix}{key}={dotenv_value(values[key])}{comment}")
            placed.add(key)
        position = end
    pieces.append(source[position:])
    merged = "".join(pieces)
    missing = [key for key in values if key not in placed]
    if missing:
        if merged and not merged.endswith("\n"):
            merged += "\n"
        merged += "".join(f"{key}={dotenv_value(values[key])}\n" for key in missing)

    # What Gemini CLI will read must be exactly what we meant to write.
    if {key: parse_dotenv(merged).get(key) for key in values} != dict(values):
        raise ConfigError("the merged file would not read back as written: edit it by hand")
    return (merged.replace("\n", "\r\n") if crlf else merged), changes
