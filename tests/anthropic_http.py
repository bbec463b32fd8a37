"""Helpers of the Anthropic end-to-end tests: plain HTTP (what the bridge put on the wire)
and the SDK client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import anthropic
from anthropic import Anthropic
from anthropic.types import Message
from anthropic_validation import validate_error
from conftest import BridgeServer


@dataclass
class Reply:
    status_code: int
    headers: dict[str, str]
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def post(
    url: str, body: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
) -> Reply:
    """A plain HTTP POST (no SDK in between): what the bridge put on the wire."""
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


def make_client(server: BridgeServer, api_key: str = "unused") -> Anthropic:
    # No retries: a 5xx or a dropped connection must fail the test, not be papered over.
    return Anthropic(base_url=server.root_url, api_key=api_key, max_retries=0, timeout=30)


def as_json(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.model_dump(mode="json", exclude_unset=True, warnings=False)
    return data


def error_body(exc: anthropic.APIStatusError) -> dict[str, Any]:
    body: dict[str, Any] = exc.response.json()
    validate_error(body)
    return body


def text_of(message: Message) -> str:
    return "".join(block.text for block in message.content if block.type == "text")
