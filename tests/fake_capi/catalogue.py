"""The model list of a FAKE of GitHub Copilot's cloud API (CAPI), for tests only.

The real cloud cannot be reached here (no network, no GitHub account), so this FAKE serves
`GET /models` in the shape Copilot Chat 0.67 parses (endpointProvider.ts, IModelAPIResponse):
per model its id, name, vendor, version, picker flags, billing and capabilities, and the
`supported_endpoints` from which Copilot picks the API (chatEndpoint.ts: `/responses` when
listed, else `/v1/messages` when listed and its Messages-API setting is on, else
`/chat/completions`). The limits are of the size the real cloud reports for such models.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

CHAT = "/chat/completions"
RESPONSES = "/responses"
MESSAGES = "/v1/messages"


@dataclass(frozen=True)
class FakeModel:
    """One model of the fake's catalogue; `entry()` is its `/models` JSON."""

    id: str
    name: str
    family: str
    vendor: str
    endpoints: tuple[str, ...]
    max_prompt: int
    max_output: int
    context_window: int
    multiplier: float
    vision: bool = True
    chat_default: bool = False
    chat_fallback: bool = False
    preview: bool = False
    reasoning_effort: tuple[str, ...] = ()
    thinking: bool = False
    tool_search: bool = False
    # The FAKE's prices in AI credits per million tokens (input, output, cache read, cache
    # write), made up in the proportions Anthropic and OpenAI charge; listed as CAPI's
    # `billing.token_prices` and billed as `copilot_usage.total_nano_aiu`.
    prices: tuple[float, float, float, float | None] | None = None

    def nano_credits(self, fresh: int, cached: int, written: int, output: int) -> int | None:
        """What the FAKE bills a request, in nano AI credits (None: the model has no prices)."""
        if self.prices is None:
            return None
        price_in, price_out, price_read, price_write = self.prices
        write = price_in if price_write is None else price_write
        total = fresh * price_in + cached * price_read + written * write + output * price_out
        return round(total * 1000)  # per million tokens -> nano credits per token: x 1,000

    def _billing(self) -> dict[str, Any]:
        billing: dict[str, Any] = {"is_premium": self.multiplier > 0, "multiplier": self.multiplier}
        if self.prices is not None:
            price_in, price_out, price_read, price_write = self.prices
            default: dict[str, Any] = {
                "input_price": price_in,
                "output_price": price_out,
                "cache_read_price": price_read,
            }
            if price_write is not None:
                default["cache_write_price"] = price_write
            billing["token_prices"] = {"batch_size": 1_000_000, "default": default}
        return billing

    @property
    def api(self) -> str:
        """The endpoint Copilot uses for it (Messages only where it is the sole choice left)."""
        if RESPONSES in self.endpoints:
            return RESPONSES
        if MESSAGES in self.endpoints:
            return MESSAGES
        return CHAT

    def entry(self) -> dict[str, Any]:
        limits: dict[str, Any] = {
            "max_prompt_tokens": self.max_prompt,
            "max_output_tokens": self.max_output,
            "max_context_window_tokens": self.context_window,
        }
        supports: dict[str, Any] = {
            "streaming": True,
            "tool_calls": True,
            "parallel_tool_calls": True,
            "vision": self.vision,
            "structured_outputs": True,
        }
        if self.vision:
            limits["vision"] = {
                "max_prompt_image_size": 3145728,
                "max_prompt_images": 1 if self.family.startswith("gemini") else 5,
                "supported_media_types": ["image/jpeg", "image/png", "image/webp", "image/gif"],
            }
        if self.reasoning_effort:
            supports["reasoning_effort"] = list(self.reasoning_effort)
        if self.thinking:
            supports["thinking"] = True
            supports["max_thinking_budget"] = 32000
            supports["min_thinking_budget"] = 1024
        if self.tool_search:
            supports["tool_search"] = True
        return {
            "id": self.id,
            "name": self.name,
            "vendor": self.vendor,
            "version": self.id,
            "object": "model",
            "model_picker_enabled": True,
            "model_picker_category": "versatile",
            "is_chat_default": self.chat_default,
            "is_chat_fallback": self.chat_fallback,
            "preview": self.preview,
            "policy": {"state": "enabled", "terms": f"Enable access to {self.name}."},
            "billing": self._billing(),
            "capabilities": {
                "type": "chat",
                "family": self.family,
                "object": "model_capabilities",
                "tokenizer": "o200k_base",
                "limits": limits,
                "supports": supports,
            },
            "supported_endpoints": list(self.endpoints),
        }


MODELS: tuple[FakeModel, ...] = (
    FakeModel(
        "gpt-4.1", "GPT-4.1", "gpt-4.1", "Azure OpenAI", (CHAT,),
        max_prompt=128000, max_output=16384, context_window=128000, multiplier=0,
        chat_default=True, chat_fallback=True, prices=(200, 800, 50, None),
    ),
    FakeModel(
        "gpt-5-mini", "GPT-5 mini", "gpt-5-mini", "Azure OpenAI", (CHAT, RESPONSES),
        max_prompt=128000, max_output=64000, context_window=264000, multiplier=0,
        reasoning_effort=("low", "medium", "high"), prices=(25, 200, 2.5, None),
    ),
    FakeModel(
        "gpt-5.1", "GPT-5.1", "gpt-5.1", "Azure OpenAI", (CHAT, RESPONSES),
        max_prompt=128000, max_output=64000, context_window=264000, multiplier=1,
        reasoning_effort=("none", "low", "medium", "high"), preview=True,
    ),
    FakeModel(
        "claude-sonnet-4.5", "Claude Sonnet 4.5", "claude-sonnet-4.5", "Anthropic",
        (CHAT, MESSAGES),
        max_prompt=128000, max_output=16000, context_window=144000, multiplier=1,
        thinking=True, tool_search=True, prices=(300, 1500, 30, 375),
    ),
    FakeModel(
        "gemini-2.5-pro", "Gemini 2.5 Pro", "gemini-2.5-pro", "Google", (CHAT,),
        max_prompt=128000, max_output=64000, context_window=128000, multiplier=1,
        prices=(125, 1000, 31.25, None),
    ),
    FakeModel(
        "o3-mini", "o3-mini", "o3-mini", "Azure OpenAI", (CHAT,),
        max_prompt=64000, max_output=100000, context_window=200000, multiplier=0.33,
        vision=False,
    ),
)  # fmt: skip

# Copilot resolves its embeddings model from the same list (modelMetadataFetcher.ts,
# getEmbeddingsModel('text-embedding-3-small')); the fake lists one, and answers no embeddings.
EMBEDDINGS_ENTRY: dict[str, Any] = {
    "id": "text-embedding-3-small",
    "name": "Embedding V3 small",
    "vendor": "Azure OpenAI",
    "version": "text-embedding-3-small",
    "object": "model",
    "model_picker_enabled": False,
    "is_chat_default": False,
    "is_chat_fallback": False,
    "preview": False,
    "capabilities": {
        "type": "embeddings",
        "family": "text-embedding-3-small",
        "object": "model_capabilities",
        "tokenizer": "cl100k_base",
        "limits": {"max_inputs": 512},
        "supports": {"dimensions": True},
    },
}


def model(model_id: str) -> FakeModel | None:
    return next((m for m in MODELS if m.id == model_id), None)


def models_json() -> dict[str, Any]:
    """The `GET /models` answer: every chat model, then the embeddings model."""
    data = [m.entry() for m in MODELS]
    data.append(copy.deepcopy(EMBEDDINGS_ENTRY))
    return {"data": data, "object": "list"}
