"""The `:generateContent` body as typed models (pydantic): lowerCamelCase, snake_case accepted.

Google's API is proto JSON, which takes both spellings of every field name (`inlineData` and
`inline_data`). Keys the bridge does not know are kept (`extra="allow"`) and ignored, so a newer
client's fields never fail a request; the ones it reads are typed. Tools, `toolConfig` and the
schemas stay plain objects here: tools.py, schema.py and response_format.py read them and name
the offending field when one is wrong.

These models are the exact path (body.py): an ordinary body is read by msgspec into wire.py's
Structs, and what these models accept is handed on as those Structs, so one conversion reads both.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool
from pydantic.alias_generators import to_camel


class _Wire(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        extra="allow",
        allow_inf_nan=False,  # NaN is not JSON
    )


class Blob(_Wire):
    mime_type: str = ""
    data: str  # base64


class FileData(_Wire):
    mime_type: str | None = None
    file_uri: str
    display_name: str | None = None


class FunctionCall(_Wire):
    id: str | None = None
    name: str
    args: dict[str, Any] | None = None


class FunctionResponsePart(_Wire):
    """Media in a function's response (newer clients put a tool's images here)."""

    inline_data: Blob | None = None
    file_data: FileData | None = None


class FunctionResponse(_Wire):
    id: str | None = None
    name: str
    response: dict[str, Any] | None = None  # `{output}` or `{error}`, or any object
    parts: list[FunctionResponsePart] | None = None


class ExecutableCode(_Wire):
    language: str | None = None
    code: str = ""


class CodeExecutionResult(_Wire):
    outcome: str | None = None
    output: str | None = None


class Part(_Wire):
    """One part: exactly one of the data fields is set (convert.py checks which)."""

    text: str | None = None
    inline_data: Blob | None = None
    file_data: FileData | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    executable_code: ExecutableCode | None = None
    code_execution_result: CodeExecutionResult | None = None
    thought: StrictBool | None = None
    thought_signature: str | None = None


class Content(_Wire):
    role: str | None = None  # "user" or "model"; missing means user
    parts: list[Part] = Field(default_factory=list)


class ThinkingConfig(_Wire):
    include_thoughts: StrictBool | None = None
    thinking_budget: Annotated[int, Field(strict=True)] | None = None
    thinking_level: str | None = None


PositiveInt = Annotated[int, Field(strict=True, ge=1)]


class GenerationConfig(_Wire):
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    top_k: Annotated[float, Field(ge=0)] | None = None
    candidate_count: Annotated[int, Field(strict=True)] | None = None
    max_output_tokens: PositiveInt | None = None
    stop_sequences: list[str] | None = None
    response_mime_type: str | None = None
    response_schema: dict[str, Any] | None = None
    response_json_schema: Any = None  # any JSON Schema (a boolean is one too)
    response_modalities: list[str] | None = None
    thinking_config: ThinkingConfig | None = None
    seed: Annotated[int, Field(strict=True)] | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    response_logprobs: StrictBool | None = None
    logprobs: Annotated[int, Field(strict=True)] | None = None
    speech_config: Any = None
    audio_timestamp: StrictBool | None = None
    media_resolution: str | None = None
    enable_enhanced_civic_answers: StrictBool | None = None


class GenerateContentRequest(_Wire):
    model: str | None = None  # the path names the model; a body's is ignored
    contents: list[Content] = Field(default_factory=list)
    system_instruction: Content | str | None = None
    tools: list[Any] | None = None
    tool_config: dict[str, Any] | None = None
    generation_config: GenerationConfig | None = None
    safety_settings: Any = None
    labels: Any = None
    cached_content: str | None = None
