"""What the benchmark's client says and listens for, per dialect of the bridge.

Each dialect asks `sim-bench` for N one-word text parts ("tok ") as a stream. The client never
parses the events (that would cost more than the servers it measures); it counts one marker per
text part and looks for one marker of the stream's proper end in the raw bytes:
- Responses writes one `response.output_text.delta` event per part, but its closing events
  (`output_text.done`, ..., `response.completed`) repeat the whole text: count the delta events.
- Messages and Chat Completions write one event per part; Gemini merges the parts of a batch into
  one chunk's text. None repeats the text at its end, so "tok " itself counts the parts.

Each also names the model list its clients read first: the start-up figure waits for it, through
the whole chain (editor included).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

WORD = b"tok "  # what `sim-bench` streams, once per part
JSON = MappingProxyType({"Content-Type": "application/json"})


@dataclass(frozen=True)
class Dialect:
    name: str
    path: str  # the streaming request's path and query
    headers: Mapping[str, str]
    body: Callable[[int], dict[str, Any]]  # the request for N parts
    part: bytes  # occurs once per text part delivered
    end: bytes  # occurs once the stream ended properly, never before
    models_path: str  # the model list this dialect's clients ask
    models_headers: Mapping[str, str]

    @property
    def carry(self) -> int:
        """Bytes kept from one chunk for the next: a marker split across two still counts."""
        return max(len(self.part), len(self.end)) - 1


def _user_text(parts: int) -> str:
    return str(parts)  # `sim-bench` streams as many parts as the first number it reads


RESPONSES = Dialect(
    name="responses",
    path="/v1/responses",
    headers=JSON,
    body=lambda n: {"model": "sim-bench", "input": _user_text(n), "stream": True},
    part=b"event: response.output_text.delta\n",
    end=b"event: response.completed\n",
    models_path="/v1/models",
    models_headers={},
)

ANTHROPIC_VERSION = MappingProxyType({"anthropic-version": "2023-06-01"})

MESSAGES = Dialect(
    name="messages",
    path="/v1/messages",
    headers=MappingProxyType({**JSON, **ANTHROPIC_VERSION}),
    body=lambda n: {
        "model": "sim-bench",
        "max_tokens": 8 * n + 1_000,  # above the bytes streamed: the bridge never counts them
        "messages": [{"role": "user", "content": _user_text(n)}],
        "stream": True,
    },
    part=WORD,
    end=b"event: message_stop\n",
    models_path="/v1/models",
    models_headers=ANTHROPIC_VERSION,
)

CHAT = Dialect(
    name="chat",
    path="/v1/chat/completions",
    headers=JSON,
    body=lambda n: {
        "model": "sim-bench",
        "messages": [{"role": "user", "content": _user_text(n)}],
        "stream": True,
    },
    part=WORD,
    end=b"data: [DONE]\n",
    models_path="/v1/models",
    models_headers={},
)

GEMINI = Dialect(
    name="gemini",
    path="/v1beta/models/sim-bench:streamGenerateContent?alt=sse",
    headers=JSON,
    body=lambda n: {"contents": [{"role": "user", "parts": [{"text": _user_text(n)}]}]},
    part=WORD,
    end=b'"finishReason":"STOP"',  # only the last chunk has a finish reason
    models_path="/v1beta/models",
    models_headers={},
)

DIALECTS = {d.name: d for d in (RESPONSES, MESSAGES, CHAT, GEMINI)}
