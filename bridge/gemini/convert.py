"""`contents` and `systemInstruction` -> the editor's chat messages (pure functions).

The editor has only user and assistant messages: `model` contents become assistant messages,
`user` ones (or no role) user messages, and the system instruction a user message placed first,
as the other dialects place system text. Thought parts are dropped: they are the model's own
notes; a model call's `thoughtSignature` that the bridge gave out (thinking_tokens.py) gives
the provider its thought back, before the call. Images come inline
(`inlineData`, checked by bridge/core/images.py); files given by URI (`fileData`) become a
note. A `functionCall` and its `functionResponse` pair by id, or, when the client sent no id
(older clients), by order and name: the first unanswered call of that name. Then
`normalise_tool_history` pairs each call with its result, or turns an unpaired one into
labelled text, as in the other dialects.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging

from bridge.core.backend import (
    ChatMessage,
    DataPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from bridge.core.errors import ApiError
from bridge.core.history import normalise_tool_history
from bridge.core.images import file_parts, image_part
from bridge.core.positions import Positions
from bridge.core.thinking_tokens import from_token
from bridge.gemini.fields import bad_field
from bridge.gemini.pairing import CallPairing
from bridge.gemini.wire import (
    Blob,
    Content,
    FileData,
    FunctionResponse,
    Part,
)

log = logging.getLogger(__name__)

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


def _code_parts(part: Part) -> list[MessagePart]:
    """Code the model ran, and its result, as text (Google runs it; the editor cannot)."""
    parts: list[MessagePart] = []
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
    return parts


def _role_is_model(role: str | None) -> bool | None:
    """Whether a content's role is the model's; None for a role that is neither side's."""
    lowered = (role or "user").lower()
    if lowered in MODEL_ROLES:
        return True
    if lowered in USER_ROLES:
        return False
    return None


def _bad_role(role: str | None, param: str) -> ApiError:
    lowered = (role or "user").lower()
    return bad_field(
        f"{param}.role",
        f"Invalid value for `{param}.role`: expected `user` or `model`, got {lowered!r}.",
    )


def to_chat_messages(
    contents: list[Content], instruction: Content | str | None = None
) -> list[ChatMessage]:
    """The system instruction first, then the conversation, in the editor's shape (unpaired).

    One pass over the parts, in the order the client sent them. A part holds one of its data
    fields (a proto `oneof`); a client sending more loses none: text, data, code, call, response.
    Consecutive contents of one role read as one turn (calls split over two model contents
    still pair with the responses after them).

    A history is thousands of parts: text, calls and `{output: text}` responses are built
    inline; no loop counts positions, the rare parts that name their param look theirs up."""
    messages: list[ChatMessage] = []
    pairing = CallPairing()
    paired_call, paired_response = pairing.call, pairing.response
    last_model: bool | None = None  # the side of the last message
    last_parts: list[MessagePart] = []
    position = Positions()
    for content in contents:
        role = content.role
        if role is None or role == "user":
            model = False
        elif role == "model":
            model = True
            pairing.new_turn()
        else:
            side = _role_is_model(role)
            if side is None:  # its param looked up only now
                raise _bad_role(role, f"contents[{position(contents, content)}]")
            model = side
            if model:
                pairing.new_turn()
        parts: list[MessagePart] = []
        add = parts.append
        for part in content.parts:
            if part.thought:
                continue
            text = part.text
            if text:
                add(TextPart(value=text))
            if not (
                part.inline_data is None
                and part.file_data is None
                and part.executable_code is None
                and part.code_execution_result is None
            ):
                index, number = position(contents, content), position(content.parts, part)
                parts.extend(_data_parts(part, f"contents[{index}].parts[{number}]", model))
            call = part.function_call
            if call is not None:
                if model and part.thought_signature:  # the provider's thought, given back
                    thought = from_token(part.thought_signature, "")
                    if thought is not None:
                        add(thought)
                name = call.name
                add(
                    ToolCallPart(
                        callId=paired_call(call.id, name), name=name, input=call.args or {}
                    )
                )
            response = part.function_response
            if response is not None:
                call_id = paired_response(response.id, response.name)
                output = response.response
                if (
                    response.parts is None
                    and output is not None
                    and len(output) == 1
                    and type(output.get("output")) is str
                ):  # nearly every response: `{output: text}` (result_content's first case)
                    result: list[TextPart | DataPart] = [TextPart(value=output["output"])]
                else:
                    index, number = position(contents, content), position(content.parts, part)
                    where = f"contents[{index}].parts[{number}].functionResponse"
                    result = result_content(response, where)
                add(ToolResultPart(callId=call_id, content=result))
        if not parts:
            continue
        if model is last_model:
            last_parts.extend(parts)
        else:
            messages.append(ChatMessage(role="assistant" if model else "user", content=parts))
            last_model, last_parts = model, parts
    system = system_parts(instruction)
    if system:
        messages.insert(0, ChatMessage(role="user", content=system))
    return messages


def _data_parts(part: Part, param: str, model: bool) -> list[MessagePart]:
    """A part's inline data, file and code, in that order; the model's own data as a note."""
    parts: list[MessagePart] = []
    if part.inline_data is not None:
        data = blob_parts(part.inline_data, f"{param}.inlineData")
        parts.extend([TextPart(value=MODEL_DATA_NOTE)] if model else data)
    if part.file_data is not None:
        parts.append(TextPart(value=MODEL_DATA_NOTE) if model else file_note(part.file_data))
    parts.extend(_code_parts(part))
    return parts


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


def editor_messages(
    contents: list[Content], instruction: Content | str | None = None
) -> list[ChatMessage]:
    """What the editor is sent: the converted conversation, each call with its response."""
    return normalise_tool_history(to_chat_messages(contents, instruction))
