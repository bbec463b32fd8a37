"""How much of a shared prompt prefix each provider bills as cached (prompt_cache.py finds it).

- OpenAI (GPT, o-series): automatic, for a shared prefix of at least 1,024 tokens, in steps of
  128 tokens after that (platform.openai.com/docs/guides/prompt-caching).
- Anthropic (Claude): only up to a `cache_control` breakpoint an earlier request wrote, and at
  least 1,024 tokens (docs.anthropic.com, prompt caching). Copilot's messagesApi.ts puts one
  after the tools and system prompt and a rolling one on the latest message.
- Gemini: implicit caching of a shared prefix, at least 1,024 tokens (2.5 Flash) or 4,096
  (2.5 Pro) (ai.google.dev/gemini-api/docs/caching).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# Test and benchmark switch: bill the exact shared prefix whatever the provider, so that a
# measure of the bridge's prefix stability sees every token (tests/test_prompt_cache_serve.py,
# bench/prompt_cache.py).
EXACT_ENV = "MAESTRO_SIM_EXACT_CACHE"


@dataclass(frozen=True)
class CachePolicy:
    minimum: int = 0  # a shorter shared prefix is not cached at all
    step: int = 1  # the cached length is minimum + a whole number of steps
    at_breakpoints: bool = False  # only up to a breakpoint of the earlier request


EXACT = CachePolicy()  # to the token: what the cache tests of prefix stability want
OPENAI = CachePolicy(minimum=1024, step=128)
ANTHROPIC = CachePolicy(minimum=1024, at_breakpoints=True)
GEMINI_FLASH = CachePolicy(minimum=1024)
GEMINI_PRO = CachePolicy(minimum=4096)


def policy_for(family: str) -> CachePolicy:
    name = family.lower()
    if name.startswith("claude"):
        return ANTHROPIC
    if "gemini" in name:
        return GEMINI_PRO if "pro" in name else GEMINI_FLASH
    return OPENAI


def billed(policy: CachePolicy, shared: int, breakpoints: tuple[int, ...] = ()) -> int:
    """The cached tokens billed for `shared` tokens in common with an earlier request that had
    cache breakpoints after `breakpoints` tokens."""
    if policy.at_breakpoints:
        shared = max((point for point in breakpoints if point <= shared), default=0)
    if shared < policy.minimum:
        return 0
    return shared - (shared - policy.minimum) % policy.step


def exact_by_env() -> bool:
    return os.environ.get(EXACT_ENV, "") in ("1", "true", "yes")
