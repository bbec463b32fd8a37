"""The Python SDKs' async clients are named as their SDK in the usage ledger: they send
`AsyncOpenAI/Python` and `AsyncAnthropic/Python`, which once fell through to `other`."""

from __future__ import annotations

from anthropic import Anthropic, AsyncAnthropic
from openai import AsyncOpenAI, OpenAI

from bridge.usage.clients import client_of


def test_sync_and_async_python_sdks_are_named_alike() -> None:
    for sdk, name in (
        (OpenAI(api_key="unused"), "openai-sdk"),
        (AsyncOpenAI(api_key="unused"), "openai-sdk"),
        (Anthropic(api_key="unused"), "anthropic-sdk"),
        (AsyncAnthropic(api_key="unused"), "anthropic-sdk"),
    ):
        assert client_of({"User-Agent": sdk.user_agent}) == name, sdk.user_agent
