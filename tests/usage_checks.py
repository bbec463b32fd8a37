"""Reading the usage ledger in the end-to-end tests: `GET /v1/usage`, waiting for the rows a
bridge writes from its own thread, and `maestro-bridge usage` run as a user runs it."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from conftest import REPO_ROOT
from thread_server import serving

USAGE_TIMEOUT = 15.0  # rows are written within a second or so; a slow CI gets room


def get_usage(root_url: str, query: str = "", headers: dict[str, str] | None = None) -> Any:
    """`GET /v1/usage` (status, parsed body); `root_url` without `/v1`."""
    request = urllib.request.Request(f"{root_url}/v1/usage{query}", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_for_usage(
    root_url: str,
    done: Callable[[dict[str, Any]], bool],
    query: str = "?recent=200",
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The summary once `done(summary)` holds (rows are written after the answer)."""
    deadline = time.monotonic() + USAGE_TIMEOUT
    while True:
        status, body = get_usage(root_url, query, headers)
        assert status == 200, body
        if done(body) or time.monotonic() > deadline:
            summary: dict[str, Any] = body
            return summary
        time.sleep(0.1)


def wait_for_requests(root_url: str, count: int) -> dict[str, Any]:
    body = wait_for_usage(root_url, lambda b: b["totals"]["requests"] >= count)
    assert body["totals"]["requests"] == count, body["recent"]
    return body


def run_usage_command(*args: str) -> subprocess.CompletedProcess[str]:
    """`maestro-bridge usage ARGS`, with no bridge involved."""
    return subprocess.run(
        [sys.executable, "-m", "bridge.cli", "usage", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def ledger_bytes(path: Path) -> bytes:
    """The ledger's file with its WAL and shared-memory files: everything SQLite keeps."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*") if p.is_file())


# --------------------------------------------------------------------------- usage sent


def sent_counts(dialect: str, usage: dict[str, Any]) -> dict[str, int]:
    """A usage object as one dialect sends it -> the ledger's four counts."""
    if dialect == "chat":
        return {
            "input_tokens": usage["prompt_tokens"],
            "cached_tokens": (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0),
            "output_tokens": usage["completion_tokens"],
            "reasoning_tokens": (usage.get("completion_tokens_details") or {}).get(
                "reasoning_tokens", 0
            ),
        }
    if dialect == "responses":
        return {
            "input_tokens": usage["input_tokens"],
            "cached_tokens": usage["input_tokens_details"]["cached_tokens"],
            "output_tokens": usage["output_tokens"],
            "reasoning_tokens": usage["output_tokens_details"]["reasoning_tokens"],
        }
    if dialect == "anthropic":  # as Anthropic's, input_tokens leave out the cache reads
        cached = usage.get("cache_read_input_tokens") or 0
        return {
            "input_tokens": usage["input_tokens"] + cached,
            "cached_tokens": cached,
            "output_tokens": usage["output_tokens"],
            "reasoning_tokens": 0,  # not reported: the ledger's count is checked apart
        }
    assert dialect == "gemini", dialect
    thoughts = usage.get("thoughtsTokenCount", 0)
    return {
        "input_tokens": usage["promptTokenCount"],
        "cached_tokens": usage.get("cachedContentTokenCount", 0),
        "output_tokens": usage.get("candidatesTokenCount", 0) + thoughts,
        "reasoning_tokens": thoughts,
    }


def added(counts: list[dict[str, int]]) -> dict[str, int]:
    names = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens")
    return {name: sum(c[name] for c in counts) for name in names}


def ledger_counts(group_row: dict[str, Any]) -> dict[str, int]:
    names = ("input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens")
    return {name: group_row[name] for name in names}


def sse_data(text: str) -> list[dict[str, Any]]:
    """The JSON objects of an SSE body's `data:` lines."""
    out = []
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip().startswith("{"):
            out.append(json.loads(line[5:]))
    return out


def usage_in_response(path: str, content_type: str, text: str) -> dict[str, int] | None:
    """The usage a model answer carried to its client (Messages or Gemini, JSON or SSE)."""
    streamed = content_type.startswith("text/event-stream")
    if path.startswith("/v1/messages") and not path.startswith("/v1/messages/count_tokens"):
        if not streamed:
            return sent_counts("anthropic", json.loads(text)["usage"])
        usage: dict[str, Any] = {}
        for event in sse_data(text):
            if event.get("type") == "message_start":
                usage.update(event["message"]["usage"])
            elif event.get("type") == "message_delta":
                usage.update({k: v for k, v in event["usage"].items() if v is not None})
        return sent_counts("anthropic", usage) if usage else None
    if ":generateContent" in path or ":streamGenerateContent" in path:
        chunks = sse_data(text) if streamed else [json.loads(text)]
        if isinstance(chunks[0], list):  # a streamed JSON array
            chunks = chunks[0]
        metas = [c["usageMetadata"] for c in chunks if "usageMetadata" in c]
        return sent_counts("gemini", metas[-1]) if metas else None
    return None


# --------------------------------------------------------------------------- a CLI's answers

_HOP = {"host", "content-length", "transfer-encoding", "connection", "accept-encoding"}


@dataclass
class AnswerRecorder:
    """A proxy between a CLI and the bridge that keeps each answer the CLI was sent (status,
    path, content type, body), so a test adds up the usage the CLI saw. The CLI's headers,
    its User-Agent first, reach the bridge as they came."""

    target: str
    answers: list[tuple[int, str, str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def forward(self, request: web.Request) -> web.Response:
        raw = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        async with (
            aiohttp.ClientSession(skip_auto_headers=("User-Agent",)) as session,
            session.request(
                request.method, self.target + request.path_qs, data=raw, headers=headers
            ) as upstream,
        ):
            body = await upstream.read()
            kind = upstream.headers.get("Content-Type", "")
            with self._lock:
                self.answers.append((upstream.status, request.path, kind, body.decode()))
            kept = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP}
            return web.Response(status=upstream.status, body=body, headers=kept)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.forward)
        return app

    def usage_sent(self) -> list[dict[str, int]]:
        """The usage of every model answer that went through (200s only)."""
        with self._lock:
            answers = list(self.answers)
        found = [usage_in_response(path, kind, text) for status, path, kind, text in answers
                 if status == 200]  # fmt: skip
        return [usage for usage in found if usage is not None]


@contextlib.contextmanager
def recording_answers(target: str) -> Iterator[tuple[AnswerRecorder, str]]:
    """An AnswerRecorder in front of `target` (a root URL); yields it and its own root URL."""
    recorder = AnswerRecorder(target)
    with serving(recorder.app(), "answer-recorder") as url:
        yield recorder, url
