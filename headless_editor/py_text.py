"""A Python file's text as the editor protocol counts it: 0-based lines and UTF-16 columns,
from the 1-based lines and UTF-8 byte columns `ast` gives."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

# The line ends `ast` counts (str.splitlines would also split at form feeds and the like).
_LINE_END = re.compile(r"\r\n|\r|\n")


class Located(Protocol):
    """What `ast` places: statements, expressions, arguments, aliases, patterns."""

    @property
    def lineno(self) -> int: ...
    @property
    def col_offset(self) -> int: ...
    @property
    def end_lineno(self) -> int | None: ...
    @property
    def end_col_offset(self) -> int | None: ...


@dataclass(frozen=True)
class Range:
    """0-based lines, UTF-16 columns, end exclusive."""

    line: int
    start: int
    end_line: int
    end: int

    def to_json(self) -> dict[str, dict[str, int]]:
        return {
            "start": {"line": self.line, "character": self.start},
            "end": {"line": self.end_line, "character": self.end},
        }


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class SourceText:
    def __init__(self, source: str) -> None:
        self.source = source
        self.lines = _LINE_END.split(source)

    def line(self, index: int) -> str:
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def column(self, line: int, index: int) -> int:
        """UTF-16 column of the character at str index `index` of a 0-based line."""
        return utf16_length(self.line(line)[:index])

    def str_index(self, lineno: int, byte_col: int) -> int:
        """The str index of an `ast` position (1-based line, UTF-8 byte column)."""
        return len(self.line(lineno - 1).encode()[:byte_col].decode(errors="ignore"))

    def span(self, line: int, index: int, length: int) -> Range:
        """`length` characters from str index `index` of a 0-based line."""
        return Range(line, self.column(line, index), line, self.column(line, index + length))

    def node_range(self, node: Located) -> Range:
        """The whole of a node (statement, expression)."""
        lineno, col = node.lineno, node.col_offset
        end_lineno = node.end_lineno or lineno
        end_col = node.end_col_offset
        start = self.str_index(lineno, col)
        end = self.str_index(end_lineno, end_col) if end_col is not None else start
        return Range(
            lineno - 1,
            self.column(lineno - 1, start),
            end_lineno - 1,
            self.column(end_lineno - 1, end),
        )

    def name_at(self, node: Located, name: str) -> Range:
        """A name at a node's start: `ast.Name`, `ast.arg`, an unaliased import."""
        lineno = node.lineno
        return self.span(lineno - 1, self.str_index(lineno, node.col_offset), len(name))

    def name_after(self, node: Located, pattern: str, name: str) -> Range:
        """A name a node does not place, found on its first line after `pattern` (a regex
        ending where the name starts: "def\\s+", "as\\s+"); the node's start if not found."""
        lineno = node.lineno
        text = self.line(lineno - 1)
        start = self.str_index(lineno, node.col_offset)
        found = re.compile(pattern + re.escape(name) + r"(?!\w)").search(text, start)
        index = found.end() - len(name) if found else start
        return self.span(lineno - 1, index, len(name))

    def last_name_in(self, node: Located, name: str) -> Range:
        """The last whole-word `name` within a node on its last line (`x` of `case [a, *x]`,
        `alias` of `import a.b as alias`)."""
        end_lineno = node.end_lineno or node.lineno
        text = self.line(end_lineno - 1)
        end = self.str_index(end_lineno, node.end_col_offset or 0)
        begin = self.str_index(end_lineno, node.col_offset) if end_lineno == node.lineno else 0
        matches = list(re.finditer(whole_word(name), text[begin:end]))
        index = begin + matches[-1].start() if matches else begin
        return self.span(end_lineno - 1, index, len(name))


def whole_word(symbol: str) -> str:
    """A regex of `symbol` as a whole word: bounded where the symbol starts or ends with a
    word character (an identifier), as the editor matches `position.symbol`."""
    before = r"(?<!\w)" if re.match(r"\w", symbol) else ""
    after = r"(?!\w)" if re.search(r"\w$", symbol) else ""
    return before + re.escape(symbol) + after
