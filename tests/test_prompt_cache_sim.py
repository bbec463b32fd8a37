"""The simulated models' prompt cache (headless_editor/prompt_cache.py): cached tokens come from
the longest common prefix, in tokens, with a recent request to the same model, within bounds,
billed as each provider bills it (headless_editor/cache_billing.py)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from bridge.core.parts import ChatMessage, DataPart, TextPart, ToolCallPart, ToolResultPart
from headless_editor import prompt_cache
from headless_editor.cache_billing import ANTHROPIC, GEMINI_PRO, OPENAI, billed, policy_for
from headless_editor.chat_types import ChatRequest, ChatTool
from headless_editor.prompt_cache import PromptCache, common_prefix_chars, rendered, unit_count
from headless_editor.simulated_model import SimulatedModel
from headless_editor.tokens import count_message_tokens, count_tool_tokens

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode("ascii")
OTHER_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(39) + b"\x01").decode("ascii")
TOOLS = [
    ChatTool(
        name="read_file",
        description="Read a file.",
        inputSchema={"type": "object", "properties": {"path": {"type": "string"}}},
    ),
    ChatTool(name="shell", description="Run a command.", inputSchema=None),
]


def _user(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=[TextPart(value=text)])


def _conversation() -> list[ChatMessage]:
    return [
        _user("You are a careful agent.\n\nRules: be brief."),
        ChatMessage(
            role="user",
            content=[TextPart(value="Look at this"), DataPart(mimeType="image/png", data=PNG)],
        ),
        ChatMessage(
            role="assistant",
            content=[
                TextPart(value="Reading it."),
                ToolCallPart(callId="c1", name="read_file", input={"path": "a.txt"}),
            ],
        ),
        ChatMessage(
            role="user",
            content=[
                ToolResultPart(callId="c1", content=[TextPart(value="hello\x00 \x01 world")]),
                DataPart(
                    mimeType="text/plain", data=base64.b64encode(b"some notes").decode("ascii")
                ),
            ],
        ),
    ]


def test_one_unit_per_counted_token() -> None:
    messages = _conversation()
    expected = count_message_tokens(messages) + count_tool_tokens(TOOLS)
    assert unit_count(rendered(messages, TOOLS)) == expected
    assert unit_count(rendered([_user("   ")], [])) == 0


def test_an_appended_turn_is_served_from_the_cache() -> None:
    cache = PromptCache()
    first = _conversation()
    assert cache.cached_tokens("m", first, TOOLS) == 0
    grown = [
        *first,
        ChatMessage(role="assistant", content=[TextPart(value="Done.")]),
        _user("Next"),
    ]
    assert cache.cached_tokens("m", grown, TOOLS) == unit_count(rendered(first, TOOLS))
    # The same request again: all of it.
    assert cache.cached_tokens("m", grown, TOOLS) == unit_count(rendered(grown, TOOLS))


def test_a_change_inside_the_history_breaks_the_prefix_there() -> None:
    cache = PromptCache()
    first = _conversation()
    cache.cached_tokens("m", first, TOOLS)
    system_tokens = unit_count(rendered([first[0]], TOOLS))
    changes = {
        "text": [first[0], _user("Glance at this"), *first[2:]],
        "call id": [
            *first[:2],
            ChatMessage(
                role="assistant",
                content=[
                    TextPart(value="Reading it."),
                    ToolCallPart(callId="c2", name="read_file", input={"path": "a.txt"}),
                ],
            ),
            *first[3:],
        ],
        "role": [first[0], ChatMessage(role="assistant", content=first[1].content), *first[2:]],
        "image": [
            first[0],
            ChatMessage(
                role="user",
                content=[
                    TextPart(value="Look at this"),
                    DataPart(mimeType="image/png", data=OTHER_PNG),
                ],
            ),
            *first[2:],
        ],
    }
    before_call = unit_count(rendered(first[:2], TOOLS)) + 4  # "Read|ing| it|."
    for what, changed in changes.items():
        cached = PromptCache()
        cached.cached_tokens("m", first, TOOLS)
        got = cached.cached_tokens("m", changed, TOOLS)
        if what == "call id":
            assert got == before_call, what
        elif what == "image":
            assert got == system_tokens + 3, what  # "Look at this", not the image
        else:
            assert got == system_tokens, what
    # Reordered tools: nothing from the start matches.
    assert cache.cached_tokens("m", first, TOOLS[::-1]) == 0
    # Another model has a cache of its own.
    assert cache.cached_tokens("other", first, TOOLS) == 0


def test_a_token_cut_short_by_the_change_is_not_counted() -> None:
    cache = PromptCache()
    cache.cached_tokens("m", [_user("abc.")], [])
    assert cache.cached_tokens("m", [_user("abcd")], []) == 0
    assert cache.cached_tokens("m", [_user("abc. more")], []) == 2


def test_common_prefix_across_blocks() -> None:
    a = "x" * 10000 + "y" + "z" * 5000
    assert common_prefix_chars(a, "x" * 10000 + "q") == 10000
    assert common_prefix_chars(a, a) == len(a)
    assert common_prefix_chars("", a) == 0


def test_the_cache_is_bounded() -> None:
    cache = PromptCache()
    for n in range(prompt_cache.MAX_ENTRIES + 10):
        cache.cached_tokens("m", [_user(f"request {n}")], [])
    assert len(cache._recent["m"]) == prompt_cache.MAX_ENTRIES
    # The first requests are forgotten: only "request" is shared with what remains.
    assert cache.cached_tokens("m", [_user("request 0")], []) == 2  # "requ|est"


def test_the_size_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompt_cache, "MAX_CHARS", 200)
    cache = PromptCache()
    cache.cached_tokens("m", [_user("word " * 100)], [])  # alone above the bound
    assert not cache._recent["m"]
    cache.cached_tokens("m", [_user("a b c")], [])
    cache.cached_tokens("m", [_user("a b d")], [])
    assert sum(map(len, cache._recent["m"])) <= 200


def test_openai_bills_1024_tokens_and_then_steps_of_128() -> None:
    assert [billed(OPENAI, n) for n in (3, 1023, 1024, 1151, 1152, 5000)] == [
        0, 0, 1024, 1024, 1152, 4992,
    ]  # fmt: skip


def test_anthropic_bills_up_to_an_earlier_breakpoint() -> None:
    assert billed(ANTHROPIC, 3000, (200, 2500)) == 2500
    assert billed(ANTHROPIC, 2400, (200, 2500)) == 0  # the breakpoint at 200 is below 1,024
    assert billed(ANTHROPIC, 2400, (1100, 2500)) == 1100
    assert billed(ANTHROPIC, 5000, ()) == 0


def test_gemini_bills_a_long_shared_prefix_exactly() -> None:
    assert billed(GEMINI_PRO, 4095) == 0 and billed(GEMINI_PRO, 4097) == 4097
    assert policy_for("gemini-2.5-pro") is GEMINI_PRO
    assert policy_for("claude-sonnet-4.5") is ANTHROPIC
    assert policy_for("gpt-4.1") is OPENAI and policy_for("o3-mini") is OPENAI


def _usage(parts: list[object]) -> dict[str, Any]:
    usage = parts[-1]
    assert isinstance(usage, DataPart) and usage.mimeType == "usage"
    found: dict[str, Any] = json.loads(base64.b64decode(usage.data))
    return found


async def _usages(model_id: str, *conversations: list[ChatMessage]) -> list[dict[str, Any]]:
    model = SimulatedModel()
    found = []
    for messages in conversations:
        request = ChatRequest(model=model_id, messages=messages)
        found.append(_usage([part async for part in model.respond(request)]))
    return found


def _grown(first: list[ChatMessage]) -> list[ChatMessage]:
    return [*first, ChatMessage(role="assistant", content=[TextPart(value="Hi.")]), _user("Again")]


@pytest.mark.parametrize("model_id", ["sim-echo", "sim-reasoning", "sim-gemini"])
async def test_a_short_prompt_repeated_is_not_cached(model_id: str) -> None:
    # A few tokens over Copilot's prompt: below every provider's minimum, so an Anthropic
    # client's input_tokens (prompt less cached) is the whole prompt, never 0.
    first = [_user("Hello there, model.")]
    usages = await _usages(model_id, first, first, _grown(first))
    assert [u["prompt_tokens_details"]["cached_tokens"] for u in usages] == [0, 0, 0]


async def test_openai_family_caches_the_shared_prefix_in_steps() -> None:
    first = [_user("word " * 2000)]
    usages = await _usages("sim-echo", first, _grown(first))
    assert usages[0]["prompt_tokens_details"]["cached_tokens"] == 0
    shared = usages[0]["prompt_tokens"]  # the whole first prompt is the second's prefix
    cached = usages[1]["prompt_tokens_details"]["cached_tokens"]
    assert cached == shared - (shared - 1024) % 128 and shared - 128 < cached <= shared
    assert cached % 128 == 0


async def test_claude_family_caches_up_to_the_last_breakpoint() -> None:
    first = [_user("word " * 2000)]
    usages = await _usages("sim-reasoning", first, _grown(first), _grown(first))
    # The second reads what the first wrote at its end; the third the second's whole prompt.
    assert usages[1]["prompt_tokens_details"]["cached_tokens"] == usages[0]["prompt_tokens"]
    assert usages[2]["prompt_tokens_details"]["cached_tokens"] == usages[1]["prompt_tokens"]
    changed = [_user("word " * 1999 + "other")]
    later = (await _usages("sim-reasoning", first, changed))[1]
    assert later["prompt_tokens_details"]["cached_tokens"] == 0  # no breakpoint in the prefix


async def test_the_permissive_model_reports_the_exact_prefix() -> None:
    model = SimulatedModel(copilot_rules=False)
    first = [_user("Hello there, model.")]
    usages = []
    for messages in (first, _grown(first)):
        request = ChatRequest(model="sim-echo", messages=messages)
        usages.append(_usage([part async for part in model.respond(request)]))
    assert usages[0]["prompt_tokens_details"]["cached_tokens"] == 0
    assert usages[1]["prompt_tokens_details"]["cached_tokens"] == usages[0]["prompt_tokens"]
