"""Where the tests' data lives: tests/fixtures/ (see its README for sources and licences)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OPENAPI_SPEC = FIXTURES / "openresponses" / "openapi.json"
CLIENTS = FIXTURES / "clients"
CLAUDE_CODE = FIXTURES / "claude_code"


def client_requests() -> list[Path]:
    """Every captured request body (`NAME.json`, not its `NAME.meta.json`), sorted by name."""
    return sorted(path for path in CLIENTS.glob("*.json") if not path.name.endswith(".meta.json"))


def client_request(name: str) -> dict[str, Any]:
    """One captured request body, by file name: `client_request("codex-patch-1")`."""
    body: dict[str, Any] = json.loads((CLIENTS / f"{name}.json").read_text(encoding="utf-8"))
    return body


def client_headers(request: Path) -> dict[str, Any]:
    """The headers captured with a request (its `.meta.json`), or {} when there are none."""
    meta = request.with_name(request.name.removesuffix(".json") + ".meta.json")
    if not meta.is_file():
        return {}
    headers: dict[str, Any] = json.loads(meta.read_text(encoding="utf-8")).get("headers") or {}
    return headers


def claude_code_captures() -> dict[str, dict[str, Any]]:
    """Claude Code's captured requests by name (`bash-default-2`): method, path, headers, body
    (tests/record_claude_code.py wrote them); `runs.json`, the CLI's side, is not one of them."""
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(CLAUDE_CODE.glob("*.json"))
        if path.name != "runs.json"
    }
