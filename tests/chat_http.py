"""Helpers of the Chat Completions end-to-end tests: plain HTTP (what the bridge put on the
wire) and the openai SDK client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from conftest import BridgeServer
from openai import OpenAI


@dataclass
class Reply:
    status_code: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """A plain HTTP POST (no SDK in between): what the bridge put on the wire."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
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


def make_client(server: BridgeServer, api_key: str = "unused") -> OpenAI:
    # No retries: a 5xx or a dropped connection must fail the test, not be papered over.
    return OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0, timeout=30)


def as_json(model: Any) -> dict[str, Any]:
    """An SDK object as the JSON it was parsed from (extra fields such as
    `reasoning_content` included)."""
    data: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True, warnings=False)
    return data
