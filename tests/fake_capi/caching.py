"""Prompt caching as a FAKE of GitHub Copilot's cloud (CAPI) reports it, per model family.

The real cloud cannot be reached here; the FAKE bills cached tokens the way the providers
behind it do, keyed per model, from the token estimate of prompt_tokens.py:
- OpenAI (gpt-*, o*): automatic. The longest token prefix shared with a recent request to the
  model is cached once it is at least 1,024 tokens, in steps of 128 after that: cached =
  1024 + 128*k, at most the shared prefix.
- Anthropic (claude-*): explicit. A request caches up to its last `cache_control` breakpoint
  when that prefix is at least 1,024 tokens (Sonnet's minimum). The longest prefix an earlier
  request wrote that ends at a breakpoint, or, as Anthropic looks back, at a block boundary up
  to 20 blocks before one, is read (`cache_read_input_tokens`); the rest up to the last
  breakpoint is written (`cache_creation_input_tokens`); `input_tokens` is what follows.
- Gemini (gemini-*): implicit. The shared prefix is cached, exactly, once it is at least
  2,048 tokens (Google's minimum for 2.5 Pro; 1,024 for the Flash models).
Memory is bounded: the last `MAX_PROMPTS` prompts (or breakpoint prefixes) per model.
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from dataclasses import dataclass

from fake_capi.prompt_tokens import Prompt

MAX_PROMPTS = 32
OPENAI_MINIMUM = 1024
OPENAI_STEP = 128
ANTHROPIC_MINIMUM = 1024
GEMINI_MINIMUM = 2048
LOOKBACK_BLOCKS = 20  # Anthropic checks about 20 blocks before a breakpoint for a hit


@dataclass(frozen=True)
class Cached:
    read: int = 0  # tokens served from the cache
    written: int = 0  # tokens written to it (Anthropic only)


class PromptCaches:
    """The recent prompts of each model; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._prompts: dict[str, deque[tuple[str, ...]]] = {}
        self._prefixes: dict[str, deque[str]] = {}  # Anthropic: digests of cached prefixes

    def clear(self) -> None:
        with self._lock:
            self._prompts.clear()
            self._prefixes.clear()

    def bill(self, model: str, family: str, prompt: Prompt) -> Cached:
        with self._lock:
            if family.startswith("claude"):
                return self._anthropic(model, prompt)
            shared = self._shared(model, tuple(prompt.units))
            if family.lower().startswith("gemini"):
                return Cached(read=shared if shared >= GEMINI_MINIMUM else 0)
            if shared < OPENAI_MINIMUM:
                return Cached()
            return Cached(
                read=OPENAI_MINIMUM + (shared - OPENAI_MINIMUM) // OPENAI_STEP * OPENAI_STEP
            )

    def _shared(self, model: str, units: tuple[str, ...]) -> int:
        recent = self._prompts.setdefault(model, deque(maxlen=MAX_PROMPTS))
        best = max((_common(units, earlier) for earlier in recent), default=0)
        recent.append(units)
        return best

    def _anthropic(self, model: str, prompt: Prompt) -> Cached:
        marks = sorted({b for b in prompt.breakpoints if b >= ANTHROPIC_MINIMUM})
        if not marks:
            return Cached()
        known = self._prefixes.setdefault(model, deque(maxlen=MAX_PROMPTS * 4))
        digests = {mark: _digest(prompt.units[:mark]) for mark in marks}
        read = max(
            (end for end in _lookback(prompt, marks) if _digest(prompt.units[:end]) in known),
            default=0,
        )
        for mark in marks:
            if digests[mark] not in known:
                known.append(digests[mark])
        return Cached(read=read, written=marks[-1] - read)


def _lookback(prompt: Prompt, marks: list[int]) -> set[int]:
    """Where Anthropic looks for an earlier write: each breakpoint and the block boundaries up
    to `LOOKBACK_BLOCKS` before it (at least the minimum)."""
    found: set[int] = set()
    for mark in marks:
        last = prompt.ends.index(mark) if mark in prompt.ends else len(prompt.ends) - 1
        for end in prompt.ends[max(0, last - LOOKBACK_BLOCKS) : last + 1]:
            if end >= ANTHROPIC_MINIMUM:
                found.add(end)
        found.add(mark)
    return found


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _digest(units: list[str]) -> str:
    return hashlib.sha256("\x00".join(units).encode("utf-8")).hexdigest()
