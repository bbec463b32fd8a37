"""Plain HTTP for the end-to-end tests: a POST with no SDK in between, so a test sees exactly
what the bridge put on the wire (status, headers, body), whatever the dialect."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass
class Reply:
    status_code: int
    headers: dict[str, str]  # lower-case names
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def post(
    url: str, body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
) -> Reply:
    """POST `body` as JSON (or `raw` bytes as they are); an HTTP error status is a Reply too."""
    data = raw if raw is not None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        headers={"content-type": "application/json", **(headers or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Reply(
                response.status,
                {k.lower(): v for k, v in response.headers.items()},
                response.read().decode(),
            )
    except urllib.error.HTTPError as error:
        return Reply(
            error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode()
        )
