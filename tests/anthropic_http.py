"""Helpers of the Anthropic end-to-end tests: plain HTTP (what the bridge put on the wire)
and the SDK client."""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic import Anthropic
from anthropic.types import Message
from anthropic_validation import validate_error
from conftest import BridgeServer


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
