"""What a Gemini request becomes before the editor is asked: the plan both sides share.

The request side (wire models and conversion) builds it with `parse_generate_request` and
`plan_generate`; the answer side (chunks, stream, routes) reads it. Whether the answer streams is
decided by the route (`:generateContent` or `:streamGenerateContent`), not by the body.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridge.core.backend import ChatRequest
from bridge.core.structured_output import OutputFormat

JUSTIFICATION = "A Gemini API client (such as Gemini CLI) asked Maestro Bridge for this answer."


@dataclass
class GeminiPlan:
    chat: ChatRequest  # what the editor is asked
    model: str  # the name the client asked for (from the path), echoed as `modelVersion`
    stream: bool
    stop_sequences: list[str] = field(default_factory=list)  # `stopSequences`: cut by the bridge
    # `thinkingConfig.includeThoughts`: thinking parts become `thought: true` parts (else dropped;
    # their tokens are still counted in `thoughtsTokenCount`).
    include_thoughts: bool = False
    input_tokens: int | None = None  # counted by the editor before sending, when it was
    # JSON the client asked for (`responseMimeType` + a schema); `checked_format` adds its checker.
    output_format: OutputFormat | None = None
