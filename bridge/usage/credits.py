"""What a request cost in GitHub Copilot's AI credits: Copilot's own figure when its cloud
reported one (`copilot_usage.total_nano_aiu`), else an estimate from the model's prices
(VS Code 1.139's model objects carry Copilot's credits per million tokens of input, output,
cache reads and cache writes), else from `usage.creditRates`; else unknown (docs/credits.md).
"""

from __future__ import annotations

from typing import NamedTuple

from bridge.core.editor_usage import UsageCounts
from bridge.core.parts import ModelPrices

NANO = 1_000_000_000  # nano AI credits in a credit
PER = 1_000_000  # prices are per million tokens


class Credits(NamedTuple):
    credits: float
    reported: bool  # Copilot's own figure; False: the bridge's estimate from prices


def estimate(usage: UsageCounts, prices: ModelPrices) -> float | None:
    """Credits from prices: input not read from or written to the cache at the input price,
    cache reads and writes at theirs (the input price where the provider names none), output
    (reasoning included) at the output price. None without input and output prices."""
    if prices.input is None or prices.output is None:
        return None
    cached = min(usage.cached_tokens, usage.input_tokens)
    written = min(usage.cache_write_tokens, usage.input_tokens - cached)
    fresh = usage.input_tokens - cached - written
    read_price = prices.input if prices.cacheRead is None else prices.cacheRead
    write_price = prices.input if prices.cacheWrite is None else prices.cacheWrite
    total = (
        fresh * prices.input
        + cached * read_price
        + written * write_price
        + usage.output_tokens * prices.output
    )
    return total / PER


def credits_of(usage: UsageCounts, prices: ModelPrices | None) -> Credits | None:
    """Copilot's figure, else the estimate; None when neither is known."""
    if usage.nano_credits is not None:
        return Credits(usage.nano_credits / NANO, reported=True)
    estimated = None if prices is None else estimate(usage, prices)
    return None if estimated is None else Credits(estimated, reported=False)
