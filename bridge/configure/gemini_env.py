"""Our variables in Gemini CLI's `~/.gemini/.env`: reading it as Gemini CLI does, and
merging them in.

Gemini CLI 0.61.0 loads that file with the `dotenv` package, whose parser is one regular
expression over the whole text (an entry's quoted value may span lines; the last entry of a
name wins). `_entries` follows the grammar that expression describes, so this module finds the
entries Gemini CLI finds, and nothing inside another entry's quoted value: a value is a quoted
string (', " or `; a quote after a backslash does not close it; it may span lines) followed by
nothing but blanks or a `# comment` on its last line, or else the rest of its line up to a `#`.

Only these names are ours: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, GEMINI_MODEL. The first
entry of each is replaced in place (its `export ` prefix kept), later ones removed, missing
ones appended; every other line (comments, blank lines, other variables) stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from bridge.configure.config_file import Change, ConfigError

# The start of an entry, as dotenv 16 reads one: blanks (JavaScript's \s also takes a byte order
# mark), an optional `export `, the name, then `=` (blanks around it) or `:` and a blank.
_ENTRY_START = re.compile(r"[ \t\ufeff]*(?:export[ \t]+)?([\w.-]+)(?:[ \t]*=|:(?=[ \t]))")
_INDENT = re.compile(r"[ \t\ufeff]*")  # kept as it is when an entry is replaced
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
    position = 0
    while position < len(text):
        line_end = _line_end(text, position)
        match = _ENTRY_START.match(text, position, line_end)
        if match is None:
            position = line_end + 1
            continue
        value_start = _INDENT.match(text, match.end()).end()  # type: ignore[union-attr]
        raw, value_end = _value(text, value_start, line_end)
        value = raw
        if len(raw) >= 2 and raw[0] in "'\"`" and raw[-1] == raw[0]:
            value = raw[1:-1]
            if raw[0] == '"':
                value = value.replace("\\n", "\n").replace("\\r", "\r")
        end = _line_end(text, value_end)
        tail = text[value_end:end].strip()
        comment = tail if tail.startswith("#") else ""
        start = _INDENT.match(text, position).end()  # type: ignore[union-attr]  # always matches
        found.append(_Entry(match.group(1), value, start, end, comment))
        position = end + 1
    return found


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


def _value(text: str, start: int, line_end: int) -> tuple[str, int]:
    """The raw value that begins at `start` (stripped) and where it ends."""
    quote = text[start : start + 1]
    if quote and quote in "'\"`":
        # Closing candidates, longest value first: the first quote not after a backslash, then
        # the escaped ones before it. The value ends there if only blanks or a comment follow.
        candidates = []
        at = text.find(quote, start + 1)
        while at >= 0:
            candidates.append(at)
            if text[at - 1] != "\\" or at - 1 == start:
                break
            at = text.find(quote, at + 1)
        for close in reversed(candidates):
            rest = text[close + 1 : _line_end(text, close)].strip()
            if not rest or rest.startswith("#"):
                return text[start : close + 1], close + 1
    unquoted = text[start:line_end].split("#", 1)[0]
    return unquoted.strip(), start + len(unquoted.rstrip())


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
