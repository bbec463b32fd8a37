"""A row of the usage ledger: one model request, metadata and token counts only.

Never a prompt, an answer or a key: the row says who asked which model how much, and how it
went. Times are Unix seconds; days are the local days of the machine (what "today" means to
its user), computed when read.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields

SCHEMA_VERSION = 1

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
    cancelled INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS requests_started ON requests (started);
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


COLUMNS = tuple(field.name for field in fields(UsageRow))
INSERT = f"INSERT INTO requests ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


def row_values(row: UsageRow) -> tuple[object, ...]:
    return astuple(row)
