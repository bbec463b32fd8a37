"""What a Messages request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it; the answer side (events, stream,
routes) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.core.backend import ChatRequest


@dataclass
class MessagesPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for, echoed in the answer's `model`
    stream: bool
    stop_sequences: list[str] = field(default_factory=list)  # cut by the bridge
    thinking: bool = False  # thinking parts become `thinking` blocks (else they are dropped)
    input_tokens: int | None = None  # counted by the editor before sending, when it was
