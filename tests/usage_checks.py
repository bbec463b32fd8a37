"""Reading the usage ledger in the end-to-end tests: `GET /v1/usage`, waiting for the rows a
bridge writes from its own thread, and `maestro-bridge usage` run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import REPO_ROOT

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
            return body
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
