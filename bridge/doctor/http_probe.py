"""The requests the checks send: the status and JSON body of an answer, or why there was none.
No proxy (the bridge is on this machine or named directly), a short timeout."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

TIMEOUT = 5.0


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no answer (the reason in `error`)
    body: Any = None  # the parsed JSON body, else None
    error: str = ""


def request(
    url: str, api_key: str | None, data: dict[str, Any] | None = None, timeout: float = TIMEOUT
) -> Answer:
    headers = {"Accept": "application/json, text/event-stream"}
    payload = None
    if data is not None:
        payload = json.dumps(data).encode()
        headers["Content-Type"] = "application/json"
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(url, payload, headers), timeout=timeout) as reply:
            return Answer(reply.status, _json(reply.read()))
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, _json(exc.read()))
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return Answer(None, error=str(getattr(reason, "strerror", None) or reason))


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def error_message(answer: Answer) -> str:
    """The `error.message` of an error answer, when it has one."""
    body = answer.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message", ""))
    return ""
