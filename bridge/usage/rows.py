"""The rows of the usage ledger: one model request (`UsageRow`, table `requests`) or one call
of an editor tool over MCP (`ToolCallRow`, table `tool_calls`), metadata only.

Never a prompt, an answer, a tool's arguments or result, or a key: a row says who asked for
what, how much, and how it went. Times are Unix seconds; days are the local days of the machine
(what "today" means to its user), computed when read.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields, replace

# 1: requests; 2: tool_calls added; 3: cache writes and credits (2 and 3 made on open in
# older files: `UPGRADE`)
SCHEMA_VERSION = 3

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    client TEXT NOT NULL,
    dialect TEXT NOT NULL,
    path TEXT NOT NULL,
    requested_model TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    estimated INTEGER NOT NULL,
    first_token_ms REAL,
    duration_ms REAL NOT NULL,
    status INTEGER NOT NULL,
    error TEXT,
    streamed INTEGER NOT NULL,
    cancelled INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    credits REAL,
    credits_reported INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS requests_started ON requests (started);
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    client TEXT NOT NULL,
    tool TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    outcome TEXT NOT NULL,
    error TEXT,
    result_chars INTEGER NOT NULL,
    truncated INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_started ON tool_calls (started);
"""


@dataclass(frozen=True)
class UsageRow:
    started: float  # Unix seconds when the bridge asked the editor
    client: str  # bridge/usage/clients.py
    dialect: str  # responses, anthropic, chat, gemini
    path: str
    requested_model: str  # the name the client sent
    model: str  # the editor model that answered
    input_tokens: int  # cached included
    cached_tokens: int
    output_tokens: int  # reasoning included
    reasoning_tokens: int
    estimated: bool  # the editor reported no usage: the bridge counted with its tokenizer
    first_token_ms: float | None  # None: no part came
    duration_ms: float
    status: int  # 200, or the status of the error the client was given
    error: str | None  # the error's code (`rate_limit_exceeded`, ...), None when it went well
    streamed: bool
    cancelled: bool  # the client went away (or the bridge cut the answer) before the end
    cache_write_tokens: int = 0  # of the input, written to the provider's cache
    credits: float | None = None  # AI credits (bridge/usage/credits.py); None: not known
    credits_reported: bool = False  # Copilot's own figure; False: estimated from prices


# The columns added since version 1, with their definitions: added to an older file's table
# when a bridge opens it (ALTER TABLE ... ADD COLUMN), and read as these defaults from a file
# no bridge has opened since (a read never changes the file).
UPGRADE = (
    ("cache_write_tokens", "INTEGER NOT NULL DEFAULT 0", "0"),
    ("credits", "REAL", "NULL"),
    ("credits_reported", "INTEGER NOT NULL DEFAULT 0", "0"),
)


COLUMNS = tuple(field.name for field in fields(UsageRow))
INSERT = f"INSERT INTO requests ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def row_values(row: UsageRow) -> tuple[object, ...]:
    return astuple(row)


# How a tool call ended: "invalid" is arguments that do not match the tool's input schema,
# "denied" a tool that tools.allow / tools.deny leave out, "unknown" a name no tool has.
TOOL_OUTCOMES = ("ok", "error", "timeout", "cancelled", "invalid", "denied", "unknown")
# Longer texts are cut when written: an unknown tool's name is whatever the client sent, and
# an error is a reason, never a result.
TOOL_CHARS = 200
ERROR_CHARS = 300


@dataclass(frozen=True)
class ToolCallRow:
    started: float  # Unix seconds when the MCP client's call arrived
    client: str  # bridge/usage/clients.py
    tool: str  # the MCP tool name the client called
    duration_ms: float
    outcome: str  # one of TOOL_OUTCOMES
    error: str | None  # why it did not go well, None when it did
    result_chars: int  # the size of the result the client got (after truncation)
    truncated: bool  # the result was over tools.maxResultChars and cut


TOOL_COLUMNS = tuple(field.name for field in fields(ToolCallRow))
INSERT_TOOL_CALL = (
    f"INSERT INTO tool_calls ({', '.join(TOOL_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(TOOL_COLUMNS))})"
)


def tool_call_values(row: ToolCallRow) -> tuple[object, ...]:
    error = None if row.error is None else row.error[:ERROR_CHARS]
    return astuple(replace(row, tool=row.tool[:TOOL_CHARS], error=error))
