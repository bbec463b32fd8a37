"""The model the headless editor serves: deterministic answers, real token counts of its own.

Without a script it behaves like a dutiful model: offered tools, it calls the first one with
an input built from the tool's schema; given a tool result, it reports on it; otherwise it
echoes the user. `sim-reasoning` thinks aloud first. Every answer ends with a `usage` part.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
from collections.abc import AsyncIterator
from typing import Any

from bridge.core.backend import (
    ChatMessage,
    ChatRequest,
    DataPart,
    EditorError,
    ModelInfo,
    ResponsePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
)
from headless_editor.bench_model import BENCH_MODEL, bench_reply
from headless_editor.script import (
    EchoRequest,
    Fail,
    Pause,
    Reply,
    Script,
    last_part,
    part_text,
    tool_result_text,
)
from headless_editor.tokens import (
    count_message_tokens,
    count_tokens,
    count_tool_call_tokens,
    count_tool_tokens,
    split_tokens,
)

MODELS: list[ModelInfo] = [
    ModelInfo(
        id="sim-echo",
        name="Simulated echo",
        vendor="maestro-sim",
        family="sim",
        version="1",
        maxInputTokens=128000,
    ),
    ModelInfo(
        id="sim-reasoning",
        name="Simulated reasoning",
        vendor="maestro-sim",
        family="sim-reasoning",
        version="1",
        maxInputTokens=128000,
    ),
    BENCH_MODEL,
]
_THINKING_MODELS = {"sim-reasoning"}
_CHUNK_TOKENS = 2  # tokens per streamed text part: a word or two
_ECHO_CHARS = 200
_SNIPPET_CHARS = 40  # the most prompt text that thinking repeats
_MAX_SCHEMA_DEPTH = 32  # guards against recursive $refs


class SimulatedModel:
    """Answers chat requests from the request alone (and an optional script)."""

    def models(self) -> list[ModelInfo]:
        return [model.model_copy() for model in MODELS]

    def count_tokens(self, text: str) -> int:
        return count_tokens(text)

    async def respond(
        self, request: ChatRequest, rules: Script | None = None
    ) -> AsyncIterator[ResponsePart]:
        """Stream the answer part by part, ending with a `usage` data part.

        Being a generator, it raises EditorError("NotFound") for an unknown model on the
        first iteration, not when called.
        """
        if request.model not in {model.id for model in MODELS}:
            known = ", ".join(model.id for model in MODELS)
            raise EditorError("NotFound", f"no model {request.model!r}; the models are {known}")
        if request.model == BENCH_MODEL.id:
            async for bench_part in bench_reply(request):
                yield bench_part
            return
        matched = rules.match(request.messages) if rules is not None else None
        reply: Reply = list(_default_reply(request)) if matched is None else matched.reply
        limit = _max_output_tokens(request.modelOptions)
        if matched is not None and matched.rule.ignore_max_output_tokens:
            limit = None
        if (
            request.model in _THINKING_MODELS
            and request.modelConfiguration.get("reasoningEffort") != "none"
        ):
            reply = _thinking(request.messages, reply) + reply
        output = _Output(limit)
        for part in reply:
            if isinstance(part, Pause):
                await asyncio.sleep(part.seconds)
                continue
            if isinstance(part, Fail):
                raise EditorError(part.code, part.message, part.name)
            if isinstance(part, EchoRequest):
                part = TextPart(value=request.model_dump_json(exclude_none=True))
            for piece in output.emit(part):
                await asyncio.sleep(0)  # a point where a cancelled request stops
                yield piece
        await asyncio.sleep(0)
        prompt = count_message_tokens(request.messages) + count_tool_tokens(request.tools)
        yield _usage_part(prompt, output)


def _default_reply(request: ChatRequest) -> list[ResponsePart]:
    messages = request.messages
    last = last_part(messages)
    user_asks = bool(messages) and messages[-1].role == "user" and isinstance(last, TextPart)
    if request.tools and (user_asks or request.toolMode == "required"):
        tool = request.tools[0]
        call = ToolCallPart(
            callId=f"call_sim_{len(messages)}",
            name=tool.name,
            input=placeholder_input(tool.inputSchema),
        )
        return [TextPart(value=f"Calling {tool.name}."), call]
    if isinstance(last, ToolResultPart):
        name = _tool_name(messages, last.callId) or last.callId
        size = len(tool_result_text(last))
        answer = f"The tool {name} returned {size} characters."
    else:
        answer = f"You said: {_collapse(_last_user_text(messages))[:_ECHO_CHARS]}"
    structured = _structured(request.messages, answer)
    return [TextPart(value=answer if structured is None else structured)]


_JSON_OBJECT_ASKED = "Answer with one JSON object and nothing else"
_JSON_SCHEMA_ASKED = "Answer with one JSON value and nothing else"
_INSTRUCTION_MESSAGES = 3  # the bridge puts its instructions first


def _structured(messages: list[ChatMessage], answer: str) -> str | None:
    """The JSON answer the bridge's structured-output instruction asks for (None for plain
    text): a model reads it as an instruction, there being no option for it.

    A json_schema answer is the schema's placeholder value (valid for it, like tool inputs);
    a json_object answer wraps the plain answer.
    """
    for message in messages[:_INSTRUCTION_MESSAGES]:
        for part in message.content:
            if not isinstance(part, TextPart):
                continue
            if part.value.startswith(_JSON_OBJECT_ASKED):
                return json.dumps({"answer": answer}, ensure_ascii=False)
            if part.value.startswith(_JSON_SCHEMA_ASKED) and ":\n" in part.value:
                try:
                    schema = json.loads(part.value.split(":\n", 1)[1])
                except ValueError:
                    schema = {}
                root = schema if isinstance(schema, dict) else {}
                return json.dumps(_placeholder(root, root, 0), ensure_ascii=False)
    return None


def _thinking(messages: list[ChatMessage], reply: Reply) -> Reply:
    snippet = _collapse(part_text(last_part(messages)))
    if len(snippet) > _SNIPPET_CHARS:
        snippet = snippet[:_SNIPPET_CHARS] + "..."
    calls = [part.name for part in reply if isinstance(part, ToolCallPart)]
    plan = f"call {', '.join(calls)}" if calls else "answer in text"
    return [
        ThinkingPart(value=f'Considering the request: "{snippet}".'),
        ThinkingPart(value=f" The plan: {plan}."),
        ThinkingPart(value=" Writing the reply now."),
    ]


class _Output:
    """Cuts the reply into streamed parts and counts them, stopping at `max_tokens`."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.tokens = 0
        self.reasoning_tokens = 0
        self.full = False  # the limit was hit: nothing more goes out

    def emit(self, part: ResponsePart) -> list[ResponsePart]:
        if self.full:
            return []
        if isinstance(part, ToolCallPart):
            cost = count_tool_call_tokens(part.name, part.input)
            if self.limit is not None and self.tokens + cost > self.limit:
                self.full = True  # a real model would have cut the call's JSON short
                return []
            self.tokens += cost
            return [part]
        if isinstance(part, ThinkingPart):
            pieces = self._take(split_tokens(part.value))
            self.reasoning_tokens += count_tokens("".join(pieces))
            return [ThinkingPart(value="".join(pieces), id=part.id)] if pieces else []
        if isinstance(part, TextPart):
            pieces = self._take(split_tokens(part.value))
            return [
                TextPart(value="".join(pieces[i : i + _CHUNK_TOKENS]))
                for i in range(0, len(pieces), _CHUNK_TOKENS)
            ]
        return [part]  # data parts are not generated text

    def _take(self, pieces: list[str]) -> list[str]:
        taken: list[str] = []
        for piece in pieces:
            cost = count_tokens(piece)
            if self.limit is not None and self.tokens + cost > self.limit:
                self.full = True
                break
            self.tokens += cost
            taken.append(piece)
        return taken


def _usage_part(prompt_tokens: int, output: _Output) -> DataPart:
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": output.tokens,
        "total_tokens": prompt_tokens + output.tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": output.reasoning_tokens},
    }
    data = base64.b64encode(json.dumps(usage).encode("utf-8")).decode("ascii")
    return DataPart(mimeType="usage", data=data)


def _max_output_tokens(options: dict[str, Any]) -> int | None:
    value = options.get("max_tokens")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _tool_name(messages: list[ChatMessage], call_id: str) -> str | None:
    for message in reversed(messages):
        for part in message.content:
            if isinstance(part, ToolCallPart) and part.callId == call_id:
                return part.name
    return None


def _last_user_text(messages: list[ChatMessage]) -> str:
    for message in reversed(messages):
        if message.role != "user":
            continue
        for part in reversed(message.content):
            if isinstance(part, TextPart):
                return part.value
    return ""


def _collapse(text: str) -> str:
    return " ".join(text.split())


# --- Tool inputs from JSON Schema -------------------------------------------------------------


def placeholder_input(schema: dict[str, Any] | None) -> dict[str, Any]:
    """An inert input that validates against `schema`: required properties only."""
    root = schema or {}
    value = _placeholder(root, root, 0)
    return value if isinstance(value, dict) else {}


def _placeholder(schema: Any, root: dict[str, Any], depth: int) -> Any:
    if not isinstance(schema, dict) or depth > _MAX_SCHEMA_DEPTH:
        return None
    deeper = depth + 1
    if isinstance(schema.get("$ref"), str):
        return _placeholder(_resolve(root, schema["$ref"]), root, deeper)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return _placeholder(schema[key][0], root, deeper)
    if schema.get("allOf"):
        return _placeholder(_merge_all_of(schema, root), root, deeper)
    kind = _type_of(schema)
    if kind == "object":
        properties = schema.get("properties") or {}
        return {
            name: _placeholder(properties.get(name, {}), root, deeper)
            for name in schema.get("required", [])
        }
    if kind == "array":
        return _array(schema, root, deeper)
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return False
    return None  # "null", or a schema that accepts anything


def _type_of(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        # ["string", "null"] is an optional string: a string is the more useful placeholder.
        kind = next((k for k in kind if k != "null"), "null" if kind else None)
    if isinstance(kind, str):
        return kind
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return None


def _resolve(root: dict[str, Any], ref: str) -> Any:
    """A local reference such as `#/$defs/Point` or `#/definitions/Point`; {} if unknown."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for token in filter(None, ref[1:].split("/")):
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return {}
    return node


def _merge_all_of(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    merged = {key: value for key, value in schema.items() if key != "allOf"}
    for sub in schema["allOf"]:
        if isinstance(sub, dict) and isinstance(sub.get("$ref"), str):
            sub = _resolve(root, sub["$ref"])
        if not isinstance(sub, dict):
            continue
        for key, value in sub.items():
            if key == "properties":
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required":
                merged["required"] = [*merged.get("required", []), *value]
            else:
                merged.setdefault(key, value)
    return merged


def _array(schema: dict[str, Any], root: dict[str, Any], depth: int) -> list[Any]:
    items = schema.get("items")
    positional = schema.get("prefixItems") or (items if isinstance(items, list) else [])
    rest = items if isinstance(items, dict) else {}
    count = schema.get("minItems", 0)
    return [
        _placeholder(positional[i] if i < len(positional) else rest, root, depth)
        for i in range(count if isinstance(count, int) else 0)
    ]


def _string(schema: dict[str, Any]) -> str:
    value = "placeholder"
    longest = schema.get("maxLength")
    if isinstance(longest, int):
        value = value[:longest]
    shortest = schema.get("minLength")
    if isinstance(shortest, int):
        value = value.ljust(shortest, "x")
    return value


def _number(schema: dict[str, Any], integer: bool) -> int | float:
    value: float = 0
    if (low := _bound(schema, "minimum")) is not None and value < low:
        value = low
    if (low := _bound(schema, "exclusiveMinimum")) is not None and value <= low:
        value = low + 1
    if (high := _bound(schema, "maximum")) is not None and value > high:
        value = high
    if (high := _bound(schema, "exclusiveMaximum")) is not None and value >= high:
        value = high - 1
    return math.ceil(value) if integer else value


def _bound(schema: dict[str, Any], key: str) -> float | None:
    value = schema.get(key)
    # Draft 4 spells exclusiveMinimum as a boolean; that flag is not a bound.
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    return None
