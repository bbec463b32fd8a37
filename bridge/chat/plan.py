"""What a Chat Completions request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it; the answer side (chunks, stream,
routes) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.core.backend import ChatRequest
from bridge.core.structured_output import OutputFormat

JUSTIFICATION = "A Chat Completions client (such as Aider) asked Maestro Bridge for this answer."


@dataclass
class CompletionPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for, echoed in the answer's `model`
    stream: bool
    include_usage: bool = False  # `stream_options.include_usage`: a last chunk with usage
    stop_sequences: list[str] = field(default_factory=list)  # `stop`: cut by the bridge
    # `parallel_tool_calls: false`: the answer ends after its first tool call.
    parallel_tool_calls: bool = True
    input_tokens: int | None = None  # counted by the editor before sending, when it was
    # JSON the client asked for (`response_format`); `checked_format` adds its checker.
    output_format: OutputFormat | None = None
