"""Prompt caching through a real `maestro-bridge serve`, in every dialect: agent sessions shaped
after the captured Codex, Claude Code, Aider and Gemini CLI requests grow turn by turn, and
each turn's input is at least 95 % served from the simulated model's prompt cache (the longest
common prefix with the turn before, exact to the token: MAESTRO_SIM_EXACT_CACHE, not the
providers' billing), as the client reads it in its dialect's usage.

A conversion that puts anything per request inside the history (a fresh id, a label, moved
system text, an instruction placed first) breaks the prefix there and fails this.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from conftest import StartServer

from bench.cache_sessions import DIALECTS, SESSIONS, Usage
from headless_editor.cache_billing import EXACT_ENV

TURNS = 6
MIN_CACHED = 0.95


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        yield session


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_each_turn_reads_the_last_one_from_the_cache(
    http: aiohttp.ClientSession, bridge_server_factory: StartServer, dialect: str
) -> None:
    # A cache of its own (no other test's requests in it), exact to the token.
    server = bridge_server_factory(env={EXACT_ENV: "1"})
    session = SESSIONS[dialect]()
    usages: list[Usage] = []
    for number in range(1, TURNS + 1):
        usages.append(await session.turn(http, server.root_url, number))
    assert usages[0].cached_tokens == 0, usages
    for number in range(1, TURNS):
        previous, this = usages[number - 1], usages[number]
        assert this.input_tokens > previous.input_tokens, usages  # the conversation grew
        assert this.cached_tokens >= MIN_CACHED * previous.input_tokens, (
            f"{dialect} turn {number + 1}: {this.cached_tokens} of the previous turn's "
            f"{previous.input_tokens} input tokens cached: {usages}"
        )
        assert this.cached_tokens <= this.input_tokens
