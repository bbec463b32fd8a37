"""The Gemini conversion as it was before issue 31 (pydantic models in, messages out), kept
as the reference the new one (bridge/gemini/convert.py, msgspec Structs in) must equal.

Copied from bridge/gemini/convert.py and bridge/gemini/pairing.py at commit 475ea18, unchanged
but for living in one file.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from dataclasses import dataclass

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part
from bridge.gemini.fields import bad_field
from bridge.gemini.protocol import (
    Blob,
    Content,
    FileData,
    FunctionCall,
    FunctionResponse,
    Part,
)

log = logging.getLogger(__name__)


@dataclass
class _Call:
    id: str
    name: str
    client_id: bool  # the client sent this id (else it was made up here)


class CallPairing:
    def __init__(self) -> None:
        self._made_up = 0
        self._waiting: list[_Call] = []  # the latest model turn's calls not yet answered
        self._ids: set[str] = set()  # every call id seen, answered or not

    def new_turn(self) -> None:
        """A model turn begins: calls from before it no longer wait."""
        self._waiting = []

    def call(self, call_id: str | None, name: str) -> str:
        """The id the call goes to the editor with."""
        if not call_id:
            self._made_up += 1
            call_id = f"gemini_call_{self._made_up}"
            self._waiting.append(_Call(call_id, name, client_id=False))
        else:
            self._waiting.append(_Call(call_id, name, client_id=True))
        self._ids.add(call_id)
        return call_id

    def response(self, call_id: str | None, name: str) -> str:
        """The id of the call this response answers, or an id that pairs with none."""
        if call_id:
            for index, waiting in enumerate(self._waiting):
                if waiting.id == call_id:
                    del self._waiting[index]
                    return call_id
            if call_id in self._ids:
                return call_id  # answered already: the history pairing labels it
        for index, waiting in enumerate(self._waiting):
            # A response without an id answers the first waiting call of its name; one with an
            # unknown id, only a call that had no id of its own.
            if waiting.name == name and (not call_id or not waiting.client_id):
                del self._waiting[index]
                return waiting.id
        return call_id or f"{name} (no id)"


USER_ROLES = ("user", "function", "tool")  # `function`: what older clients call results
MODEL_ROLES = ("model", "assistant")
_URL_SAFE = str.maketrans("-_", "+/")
MODEL_DATA_NOTE = "[an image or file in a model turn, not included]"


def standard_base64(data: str, param: str) -> str:
    """Proto JSON bytes (standard or URL-safe base64, padded or not) as padded standard
    base64; a 400 naming `param` when it is neither."""
    text = "".join(data.split()).translate(_URL_SAFE).rstrip("=")
    text += "=" * (-len(text) % 4)
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise bad_field(param, f"Invalid value for `{param}`: not valid base64.") from None
    return text


def blob_parts(blob: Blob, param: str) -> list[MessagePart]:
    """Inline data: an image, a text file's text, or a note; 400 when it is not base64."""
    data = standard_base64(blob.data, f"{param}.data")
    if blob.mime_type.startswith("image/"):
        return [image_part(f"data:{blob.mime_type};base64,{data}")]
    return file_parts(f"inline {blob.mime_type or 'data'}", data, None, None)


def file_note(file: FileData) -> TextPart:
    kind = f", {file.mime_type}" if file.mime_type else ""
    return TextPart(
        value=f"[file not included: {file.file_uri}{kind} (the editor cannot fetch files; send "
        "text or images inline as `inlineData`)]"
    )


def response_text(response: FunctionResponse) -> str:
    """A function's response as text: its `output` (or `error`) when that is all it holds."""
    body = response.response or {}
    if not body:
        return ""
    if len(body) == 1:
        ((key, value),) = body.items()
        if key == "output" and isinstance(value, str):
            return value
        if key == "error" and isinstance(value, str):
            return f"Error: {value}"
    return json.dumps(body, ensure_ascii=False)


def result_content(response: FunctionResponse, param: str) -> list[TextPart | DataPart]:
    content: list[TextPart | DataPart] = [TextPart(value=response_text(response))]
    for index, part in enumerate(response.parts or []):
        where = f"{param}.parts[{index}]"
        if part.inline_data is not None:
            for media in blob_parts(part.inline_data, f"{where}.inlineData"):
                if isinstance(media, (TextPart, DataPart)):
                    content.append(media)
        elif part.file_data is not None:
            content.append(file_note(part.file_data))
    return content


class _Conversation:
    """The editor's messages as they are built, with the calls waiting for their responses."""

    def __init__(self) -> None:
        self.messages: list[ChatMessage] = []
        self.pairing = CallPairing()

    def add(self, role: str, parts: list[MessagePart]) -> None:
        if not parts:
            return
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == role:
            # Consecutive contents of one role read as one turn (calls split over two model
            # contents still pair with the responses after them).
            last.content.extend(parts)
        else:
            self.messages.append(
                ChatMessage(role="assistant" if role == "assistant" else "user", content=parts)
            )

    def call(self, call: FunctionCall) -> ToolCallPart:
        call_id = self.pairing.call(call.id, call.name)
        return ToolCallPart(callId=call_id, name=call.name, input=call.args or {})

    def response(self, response: FunctionResponse, param: str) -> ToolResultPart:
        call_id = self.pairing.response(response.id, response.name)
        return ToolResultPart(callId=call_id, content=result_content(response, param))

    def part(self, part: Part, param: str, model: bool) -> list[MessagePart]:
        if part.thought:
            return []
        # A part holds one of these (a proto `oneof`); a client sending more loses none.
        parts: list[MessagePart] = []
        if part.text:
            parts.append(TextPart(value=part.text))
        if part.inline_data is not None:
            data = blob_parts(part.inline_data, f"{param}.inlineData")
            parts.extend([TextPart(value=MODEL_DATA_NOTE)] if model else data)
        if part.file_data is not None:
            parts.append(TextPart(value=MODEL_DATA_NOTE) if model else file_note(part.file_data))
        if part.executable_code is not None:
            code = part.executable_code
            language = (code.language or "").lower().replace("language_unspecified", "")
            parts.append(TextPart(value=f"[code executed:]\n```{language}\n{code.code}\n```"))
        if part.code_execution_result is not None:
            result = part.code_execution_result
            parts.append(
                TextPart(
                    value=f"[code execution result ({result.outcome or 'unknown outcome'}):]\n"
                    f"{result.output or ''}"
                )
            )
        if part.function_call is not None:
            parts.append(self.call(part.function_call))
        if part.function_response is not None:
            parts.append(self.response(part.function_response, f"{param}.functionResponse"))
        return parts

    def content(self, content: Content, param: str) -> None:
        role = (content.role or "user").lower()
        if role not in USER_ROLES + MODEL_ROLES:
            raise bad_field(
                f"{param}.role",
                f"Invalid value for `{param}.role`: expected `user` or `model`, got {role!r}.",
            )
        model = role in MODEL_ROLES
        if model:
            self.pairing.new_turn()
        parts: list[MessagePart] = []
        for index, part in enumerate(content.parts):
            parts.extend(self.part(part, f"{param}.parts[{index}]", model))
        self.add("assistant" if model else "user", parts)


def system_parts(instruction: Content | str | None) -> list[MessagePart]:
    """The system instruction's text and images (its role, if any, is not read)."""
    if instruction is None:
        return []
    if isinstance(instruction, str):
        return [TextPart(value=instruction)] if instruction else []
    parts: list[MessagePart] = []
    for index, part in enumerate(instruction.parts):
        param = f"systemInstruction.parts[{index}]"
        if part.thought:
            continue
        if part.text:
            parts.append(TextPart(value=part.text))
        if part.inline_data is not None:
            parts.extend(blob_parts(part.inline_data, f"{param}.inlineData"))
        if part.file_data is not None:
            parts.append(file_note(part.file_data))
    return parts


def to_chat_messages(
    contents: list[Content], instruction: Content | str | None = None
) -> list[ChatMessage]:
    """The system instruction first, then the conversation, in the editor's shape (unpaired)."""
    conversation = _Conversation()
    for index, content in enumerate(contents):
        conversation.content(content, f"contents[{index}]")
    system = system_parts(instruction)
    preamble = [ChatMessage(role="user", content=system)] if system else []
    return preamble + conversation.messages


def editor_messages(
    contents: list[Content], instruction: Content | str | None = None
) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each call with its response."""
    return normalise_tool_history(to_chat_messages(contents, instruction))
