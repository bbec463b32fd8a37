"""The `:generateContent` body as msgspec Structs: what the conversion reads, decoded in one pass.

The same fields, names and meaning as protocol.py's pydantic models (the exact path): the
attributes are snake_case, the wire names lowerCamelCase. Only camelCase is read here, and
every Struct forbids keys it does not know: a body with a snake_case key, a key newer than the
bridge or anything else unexpected is left to the exact path (`TypedBody.decode` gives None),
which accepts both spellings and ignores unknown keys as before. That also keeps the fast path
exact: a key msgspec skipped unread could hold what the exact path refuses (a number too large,
bytes that are not UTF-8, nesting past `limits.maxJsonDepth`); a key it reads cannot. The keys
the bridge accepts without effect (options.py) are declared, read and ignored.

Types are as strict as pydantic's or stricter (msgspec takes no string for a number, no
boolean for a float, no number too large for a float), so what decodes here is what the exact
path would accept, with the same values.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from bridge.core.typed_body import TypedBody


# gc=False: a long history is thousands of these, which the garbage collector then need not
# track (they hold only decoded JSON: no reference cycles).
class _Wire(msgspec.Struct, kw_only=True, rename="camel", forbid_unknown_fields=True, gc=False):
    pass


class Blob(_Wire, kw_only=True):
    mime_type: str = ""
    data: str  # base64


class FileData(_Wire, kw_only=True):
    mime_type: str | None = None
    file_uri: str
    display_name: str | None = None


class FunctionCall(_Wire, kw_only=True):
    id: str | None = None
    name: str
    args: dict[str, Any] | None = None


class FunctionResponsePart(_Wire, kw_only=True):
    inline_data: Blob | None = None
    file_data: FileData | None = None


class FunctionResponse(_Wire, kw_only=True):
    id: str | None = None
    name: str
    response: dict[str, Any] | None = None
    parts: list[FunctionResponsePart] | None = None


class ExecutableCode(_Wire, kw_only=True):
    language: str | None = None
    code: str = ""


class CodeExecutionResult(_Wire, kw_only=True):
    outcome: str | None = None
    output: str | None = None


class Part(_Wire, kw_only=True):
    text: str | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    executable_code: ExecutableCode | None = None
    code_execution_result: CodeExecutionResult | None = None
    thought: bool | None = None
    thought_signature: str | None = None


class Content(_Wire, kw_only=True):
    role: str | None = None
    parts: list[Part] = msgspec.field(default_factory=list)


class ThinkingConfig(_Wire, kw_only=True):
    include_thoughts: bool | None = None
    thinking_budget: int | None = None
    thinking_level: str | None = None


class GenerationConfig(_Wire, kw_only=True):
    temperature: Annotated[float, Meta(ge=0, le=2)] | None = None
    top_p: Annotated[float, Meta(ge=0, le=1)] | None = None
    top_k: Annotated[float, Meta(ge=0)] | UnsetType | None = UNSET
    candidate_count: int | None = None
    max_output_tokens: Annotated[int, Meta(ge=1)] | None = None
    stop_sequences: list[str] | None = None
    response_mime_type: str | None = None
    response_schema: dict[str, Any] | None = None
    response_json_schema: Any = None
    response_modalities: list[str] | None = None
    thinking_config: ThinkingConfig | None = None
    seed: int | UnsetType | None = UNSET
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    response_logprobs: bool | None = None
    logprobs: int | None = None
    speech_config: Any = None
    audio_timestamp: bool | UnsetType | None = UNSET
    media_resolution: str | UnsetType | None = UNSET
    enable_enhanced_civic_answers: bool | UnsetType | None = UNSET
    # Accepted and ignored (options.IGNORED_CONFIG); the exact path keeps them as extra keys.
    enable_affective_dialog: Any = UNSET
    routing_config: Any = UNSET
    model_selection_config: Any = UNSET


class GenerateContentRequest(_Wire, kw_only=True):
    contents: list[Content]  # required here: a body without it takes the exact path's 400
    system_instruction: Content | str | None = None
    tools: list[Any] | None = None
    tool_config: dict[str, Any] | None = None
    generation_config: GenerationConfig | None = None
    cached_content: str | None = None
    # Accepted and ignored (options.IGNORED_BODY).
    model: str | UnsetType | None = UNSET
    safety_settings: Any = UNSET
    labels: Any = UNSET


# The ignored fields above, by attribute, with the name the debug log gives them.
IGNORED_BODY_FIELDS = (
    ("model", "model"),
    ("safety_settings", "safetySettings"),
    ("labels", "labels"),
)
IGNORED_CONFIG_FIELDS = (
    ("top_k", "topK"),
    ("seed", "seed"),
    ("media_resolution", "mediaResolution"),
    ("audio_timestamp", "audioTimestamp"),
    ("enable_enhanced_civic_answers", "enableEnhancedCivicAnswers"),
    ("enable_affective_dialog", "enableAffectiveDialog"),
    ("routing_config", "routingConfig"),
    ("model_selection_config", "modelSelectionConfig"),
)


# The fast path's decoder (body.py); `TYPED.from_validated` turns the exact path's pydantic
# result into these Structs (plan.py).
TYPED = TypedBody(GenerateContentRequest)
