"""Model names as clients send them (Claude Code, Gemini CLI, Codex), resolved against real
editor model lists (tests/fixtures/editor_model_lists.json) by bridge/core/models.py."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import re
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest
from conftest import BridgeServer
from fixture_files import FIXTURES

from bridge.core import models as model_names
from bridge.core.backend import ModelInfo
from bridge.core.errors import ApiError
from bridge.core.models import ModelNames, NameKey, match_name, name_key, resolve_model

LISTS: dict[str, list[str]] = {
    name: entry["ids"]
    for name, entry in json.loads(
        (FIXTURES / "editor_model_lists.json").read_text(encoding="utf-8")
    )["lists"].items()
}
NEW, OLD = LISTS["copilot-2026-01"], LISTS["copilot-2025-10"]


def editor(ids: list[str]) -> list[ModelInfo]:
    return [ModelInfo(id=model_id, vendor="copilot") for model_id in ids]


def answer(requested: str, ids: list[str], names: ModelNames | None = None) -> str | None:
    """The editor id that answers `requested`, or None for a 404."""
    try:
        return resolve_model(requested, editor(ids), names).id
    except ApiError as error:
        assert (error.status, error.code) == (404, "model_not_found")
        return None


@pytest.fixture(autouse=True)
def fresh_log_memory() -> Iterator[None]:
    # The once-per-pair log memory is process-wide; each test starts from an empty one.
    model_names._reported.clear()
    yield
    model_names._reported.clear()


# --------------------------------------------------------------------------- the names


CLAUDE_CODE = [
    # Claude Code 1.x and 2.0 (dated API ids)
    ("claude-3-5-sonnet-20241022", "claude-sonnet-4.5", "family"),
    ("claude-3-5-haiku-20241022", "claude-haiku-4.5", "family"),
    ("claude-3-7-sonnet-latest", "claude-sonnet-4.5", "family"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4", "normalised"),
    ("claude-opus-4-20250514", "claude-opus-4.5", "family"),
    ("claude-opus-4-1-20250805", "claude-opus-4.5", "family"),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4.5", "normalised"),
    ("claude-haiku-4-5-20251001", "claude-haiku-4.5", "normalised"),
    ("claude-opus-4-5-20251101", "claude-opus-4.5", "normalised"),
    ("claude-sonnet-4-5", "claude-sonnet-4.5", "normalised"),
    # Claude Code 2.1.330: default, --model sonnet, --model haiku
    ("claude-opus-5-5", "claude-opus-4.5", "family"),
    ("claude-sonnet-5-5", "claude-sonnet-4.5", "family"),
    ("claude-haiku-5-5", "claude-haiku-4.5", "family"),
    # context markers, vendor prefixes, Vertex dates, other spellings
    ("claude-sonnet-4-5-20250929[1m]", "claude-sonnet-4.5", "normalised"),
    ("claude-opus-4-6[1m]", "claude-opus-4.5", "family"),
    ("anthropic/claude-sonnet-4.5", "claude-sonnet-4.5", "normalised"),
    ("claude-sonnet-4-5@20250929", "claude-sonnet-4.5", "normalised"),
    ("claude-sonnet-4-5-2025-09-29", "claude-sonnet-4.5", "normalised"),
    ("Claude_Sonnet_4.5", "claude-sonnet-4.5", "normalised"),
    ("claude-3.5-sonnet", "claude-sonnet-4.5", "family"),
]
GEMINI_CLI = [
    ("gemini-2.5-pro", "gemini-2.5-pro", "exact"),
    ("models/gemini-2.5-pro", "gemini-2.5-pro", "normalised"),
    ("gemini-2.5-pro-exp-03-25", "gemini-2.5-pro", "normalised"),
    ("gemini-2.5-pro-preview-06-05", "gemini-2.5-pro", "normalised"),
    ("gemini-3-pro-preview", "gemini-3-pro-preview", "exact"),
    ("gemini-3-pro", "gemini-3-pro-preview", "normalised"),
    ("models/gemini-3-pro-preview", "gemini-3-pro-preview", "normalised"),
    ("gemini-2.5-flash", "gemini-3-flash-preview", "family"),
    ("gemini-2.5-flash-preview-05-20", "gemini-3-flash-preview", "family"),
    ("gemini-3-flash", "gemini-3-flash-preview", "normalised"),
    ("gemini-2.5-flash-lite", None, None),  # no flash-lite in the editor; flash is another model
]
CODEX = [
    ("gpt-5.1-codex-max", "gpt-5.1-codex-max", "exact"),
    ("gpt-5-codex", "gpt-5-codex", "exact"),
    ("GPT-5.1-Codex", "gpt-5.1-codex", "normalised"),
    ("gpt-5.2-codex", "gpt-5.1-codex", "family"),
    ("gpt-5.1-codex-mini", "gpt-5.1-codex-mini", "exact"),
    ("gpt-5.5", None, None),  # a one-word family: the version is the model; use an alias
    ("gpt-6", None, None),
    ("gpt-5-nano", None, None),  # neither gpt-5 nor gpt-5-mini
    ("codex-mini-latest", None, None),
    ("openai/gpt-5-mini", "gpt-5-mini", "normalised"),
    ("gpt-4.1", "gpt-4.1-2025-04-14", "normalised"),
    ("gpt-4o", "gpt-4o-2024-11-20", "normalised"),  # the first of its dated ids
    ("gpt-5", "gpt-5", "exact"),
]


def how_answered(requested: str, ids: list[str]) -> str | None:
    if requested in ids:
        return "exact"
    match = match_name(requested, ids)
    return match[1] if match else None


@pytest.mark.parametrize(("requested", "expected", "how"), CLAUDE_CODE + GEMINI_CLI + CODEX)
def test_client_names_on_copilot_2026_01(
    requested: str, expected: str | None, how: str | None
) -> None:
    assert answer(requested, NEW) == expected
    assert how_answered(requested, NEW) == how


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        # This account had no Claude models: Claude names are never answered by another vendor.
        ("claude-sonnet-4-5-20250929", None),
        ("claude-opus-5-5", None),
        ("claude-haiku-4-5-20251001[1m]", None),
        # Dated snapshots: the plain id first, whatever date was asked.
        ("GPT-4", "gpt-4"),
        ("gpt-4-0613", "gpt-4-0613"),
        ("gpt-4o-2099-01-01", "gpt-4o"),
        ("o4-mini-2099-01-01", "o4-mini"),
        ("o3-mini-latest", "o3-mini"),
        ("O3-MINI-2025-01-31", "o3-mini-2025-01-31"),
        ("gpt-4.1-mini", "gpt-5-mini"),  # family `gpt mini`; gpt-4o-mini is `gpt 4o mini`
        ("gpt-4o-mini", "gpt-4o-mini"),
        ("gpt-3-5-turbo", "gpt-3.5-turbo"),
        # Gemini: the family's newest version, also when it is older than the one asked.
        ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        ("gemini-2.5-flash", "gemini-2.0-flash-001"),
        ("gemini-2.0-flash", "gemini-2.0-flash-001"),
        ("gemini-3-pro-preview", "gemini-2.5-pro"),
        ("gemini-2.5-flash-lite", None),
        ("grok-code-fast-2", "grok-code-fast-1"),
        ("o3", None),
        ("o5-mini", None),  # o3-mini and o4-mini are other families
    ],
)
def test_client_names_on_copilot_2025_10(requested: str, expected: str | None) -> None:
    assert answer(requested, OLD) == expected


@pytest.mark.parametrize("list_name", sorted(LISTS))
def test_every_editor_id_is_found_under_other_spellings(list_name: str) -> None:
    ids = LISTS[list_name]
    for model_id in ids:
        key = name_key(model_id)
        assert key is not None, model_id
        for spelling in (
            model_id.upper(),
            model_id.replace(".", "-"),
            model_id.replace("-", "_"),
            f"models/{model_id}",
            f"{model_id}[1m]",
            f"{model_id}-20991231",
        ):
            answered = answer(spelling, ids)
            assert answered is not None, (spelling, list_name)
            assert name_key(answered) == key, (spelling, answered)
            if model_id.upper() == spelling:  # same tokens: that very id, not a sibling
                assert answered == model_id


@pytest.mark.parametrize("list_name", sorted(LISTS))
def test_never_across_families(list_name: str) -> None:
    ids = LISTS[list_name]
    for requested, _, _ in CLAUDE_CODE + GEMINI_CLI + CODEX:
        answered = answer(requested, ids)
        if answered is None:
            continue
        asked, got = words(requested), words(answered)
        for word in ("opus", "sonnet", "haiku", "flash", "pro", "codex", "mini", "lite", "max"):
            assert (word in asked) == (word in got), (requested, answered)
        assert asked[0] == got[0] or asked[0] in ("models", "anthropic", "openai")


def words(name: str) -> list[str]:
    return re.split(r"[^a-z0-9]+", name.lower())


# --------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("claude-sonnet-4-5-20250929", NameKey(("claude", "sonnet"), (4, 5))),
        ("claude-3-5-sonnet-20241022", NameKey(("claude", "sonnet"), (3, 5))),
        ("gemini-2.0-flash-001", NameKey(("gemini", "flash"), (2,))),
        ("gemini-2.5-flash-preview-05-20", NameKey(("gemini", "flash"), (2, 5))),
        ("o3-mini-2025-01-31", NameKey(("o3", "mini"), ())),
        ("gpt-4-0125-preview", NameKey(("gpt",), (4,))),
        ("gpt-5-mini", NameKey(("gpt", "mini"), (5,))),
        ("models/Gemini-2.5-Pro", NameKey(("gemini", "pro"), (2, 5))),
        ("claude-opus-4.6-1m", NameKey(("claude", "opus", "1m"), (4, 6))),
        ("build-123456", NameKey(("build", "123456"), ())),  # long digit runs are words
        ("4.5", None),
        ("", None),
        ("[1m]", None),
        ("a/b/", None),
    ],
)
def test_name_key(name: str, key: NameKey | None) -> None:
    assert name_key(name) == key


def test_aliases_and_exact_ids_come_first() -> None:
    ids = ["claude-sonnet-4", "claude-sonnet-4.5"]
    # An alias beats the normalising match, an exact id beats a normalised sibling.
    names = ModelNames({"claude-sonnet-4-5": "claude-sonnet-4"})
    assert answer("claude-sonnet-4-5", ids, names) == "claude-sonnet-4"
    assert answer("claude-sonnet-4", ["claude-sonnet-4-0", "claude-sonnet-4"]) == "claude-sonnet-4"
    # Aliases themselves match exactly (tests/test_model_aliases.py keeps that).
    assert answer("GPT-5.5", ids, ModelNames({"gpt-5.5": "claude-sonnet-4"})) is None


def test_the_default_model_comes_after_the_family() -> None:
    names = ModelNames(default="gpt-5-mini")
    assert answer("claude-opus-5-5", NEW, names) == "claude-opus-4.5"
    assert answer("gemini-2.5-flash-lite", NEW, names) == "gpt-5-mini"
    assert answer("gpt-5.5", NEW, names) == "gpt-5-mini"


def test_a_name_without_a_match_is_the_same_404() -> None:
    with pytest.raises(ApiError) as info:
        resolve_model("claude-opus-5-5", editor(OLD))
    assert info.value.message.startswith(
        "The model 'claude-opus-5-5' does not exist in the editor. Available models: gpt-4.1, "
    )


def test_words_and_numbers_may_come_in_either_order() -> None:
    # Copilot's older ids put the version first (`claude-3.5-sonnet`), as Anthropic's did.
    ids = ["claude-3.5-sonnet", "claude-3.7-sonnet", "claude-3.7-sonnet-thought"]
    assert answer("claude-3-5-sonnet-20241022", ids) == "claude-3.5-sonnet"
    assert answer("claude-sonnet-3-5", ids) == "claude-3.5-sonnet"
    assert answer("claude-3-7-sonnet-20250219", ids) == "claude-3.7-sonnet"
    assert answer("claude-sonnet-4-5-20250929", ids) == "claude-3.7-sonnet"  # family's newest
    assert answer("claude-3-7-sonnet-thought", ids) == "claude-3.7-sonnet-thought"


def test_newest_prefers_the_plain_id_on_a_tie() -> None:
    ids = ["claude-opus-4-5-20251101", "claude-opus-4.1", "claude-opus-4.5"]
    assert answer("claude-opus-9", ids) == "claude-opus-4.5"
    assert answer("claude-opus-4-5", ids) == "claude-opus-4.5"
    assert answer("claude-opus-4-5-20251101", ids) == "claude-opus-4-5-20251101"


def test_odd_names_never_raise_anything_but_the_404() -> None:
    rng = random.Random(7)
    alphabet = "ab9-._/@[] 0\u0130\u00b2\U0001f600"
    for _ in range(3000):
        requested = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        answered = answer(requested, NEW + OLD)
        assert answered is None or answered in NEW + OLD
    assert answer("-".join(["9"] * 20000), NEW) is None
    assert answer("claude-" + "1-" * 20000 + "opus", NEW) == "claude-opus-4.5"


def test_each_pair_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.core.models")
    names = ModelNames({"my-model": "gpt-5"}, default="gpt-5-mini")
    for _ in range(3):
        answer("claude-sonnet-4-5-20250929", NEW, names)
        answer("claude-opus-5-5", NEW, names)
        answer("my-model", NEW, names)
        answer("unknown-thing", NEW, names)
        answer("gpt-5", NEW, names)  # an exact id: nothing to say
    ours = [record for record in caplog.records if record.name == "bridge.core.models"]
    lines = [record.getMessage() for record in ours]
    assert lines == [
        "The model 'claude-sonnet-4-5-20250929' is answered by the editor model "
        "'claude-sonnet-4.5' (normalised).",
        "The model 'claude-opus-5-5' is answered by the editor model 'claude-opus-4.5' (family).",
        "The model 'my-model' is answered by the editor model 'gpt-5' (alias).",
        "The model 'unknown-thing' is answered by the editor model 'gpt-5-mini' (default).",
    ]


def test_log_memory_stays_bounded(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bridge.core.models")
    names = ModelNames(default="gpt-5")
    for number in range(3000):
        answer(f"unknown-{number}", NEW, names)
    assert len(model_names._reported) <= 1024
    answer("y" * 5000, NEW, names)
    assert "y" * 200 + "..." in caplog.text and "y" * 201 not in caplog.text


def test_resolving_is_fast() -> None:
    models = editor(NEW + OLD)
    names = ModelNames(default="gpt-5")
    requested = [name for name, _, _ in CLAUDE_CODE + GEMINI_CLI + CODEX]
    start = time.perf_counter()
    for _ in range(200):
        for name in requested:
            resolve_model(name, models, names)
    per_call = (time.perf_counter() - start) / (200 * len(requested))
    # Measured about 70 microseconds with 50 editor models; a slow shared machine stays far
    # below this bound, a resolver that re-reads the model list per candidate does not.
    assert per_call < 0.001, per_call


# --------------------------------------------------------------------------- served


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        yield session


async def test_served_spellings(http: aiohttp.ClientSession, bridge_server: BridgeServer) -> None:
    body: dict[str, Any] = {"model": "models/SIM-ECHO", "input": "Hello!"}
    async with http.post(f"{bridge_server.base_url}/responses", json=body) as reply:
        assert reply.status == 200, await reply.text()
        response = await reply.json()
    assert response["model"] == "models/SIM-ECHO"  # the client's own name, as with aliases
    assert response["output"][-1]["content"][0]["text"] == "You said: Hello!"

    async with http.get(f"{bridge_server.base_url}/models/Sim_Reasoning") as reply:
        assert reply.status == 200, await reply.text()
        entry = await reply.json()
    assert (entry["id"], entry["alias_for"], entry["object"]) == (
        "Sim_Reasoning",
        "sim-reasoning",
        "model",
    )

    async with http.get(f"{bridge_server.base_url}/models/gpt-x") as reply:
        assert reply.status == 404
        assert (await reply.json())["error"]["code"] == "model_not_found"
    bridge_server.assert_alive()
    logged = "The model 'models/SIM-ECHO' is answered by the editor model 'sim-echo' (normalised)."
    deadline = time.monotonic() + 10
    while logged not in bridge_server.stderr_text():
        assert time.monotonic() < deadline, bridge_server.stderr_text()[-2000:]
        await asyncio.sleep(0.05)
