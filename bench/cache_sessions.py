"""Multi-turn agent sessions replayed the way the captured clients grow them, in each dialect
(`python -m bench.prompt_cache` and tests/test_prompt_cache_*.py).

Each session starts from a captured first request (Codex on Responses, Claude Code on
Messages, Gemini CLI on Gemini, Aider on Chat Completions), then grows it as its client does:
the model's answer is appended as the client received it, then the tool results for its calls
(or a new user turn when it called none). Claude Code moves its `cache_control` marker to the
newest block each turn, so the client's own bytes of the earlier turns change; so does this.
The simulated model (no script) calls the first offered tool when the user asks something and
reports on a tool's result, so the sessions alternate calls and answers.

`Usage` reads each dialect's own fields: the whole input and the part of it read from cache.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import aiohttp

# The captured requests the tests replay too (tests/fixtures/README.md says where they come from).
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
CLIENTS = FIXTURES / "clients"
CLAUDE_CODE = FIXTURES / "claude_code"

DIALECTS = ("responses", "messages", "chat", "gemini")
MODELS = {
    "responses": "sim-echo",
    "messages": "sim-reasoning",
    "chat": "sim-echo",
    "gemini": "sim-gemini",
}
_HOP_HEADERS = {"host", "content-length", "connection", "accept-encoding", "transfer-encoding"}


class SessionError(RuntimeError):
    """A turn the bridge did not answer as a client expects."""


class Usage(NamedTuple):
    input_tokens: int  # the whole prompt, cached part included
    cached_tokens: int


@dataclass
class Session:
    """One client's conversation: where it posts, its headers and its growing body."""

    dialect: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    grow: Callable[[Session, Any, int], None]  # appends the answer and the next turn
    usage: Callable[[Any], Usage]
    streamed: bool = False
    # Changes a turn makes to the request beyond the conversation (None: none).
    vary: Callable[[dict[str, Any], int], None] | None = None

    async def turn(self, http: aiohttp.ClientSession, root_url: str, number: int) -> Usage:
        """Sends the conversation, grows it by the answer and the next turn; the answer's usage."""
        if self.vary is not None:
            self.vary(self.body, number)
        async with http.post(root_url + self.path, json=self.body, headers=self.headers) as reply:
            text = await reply.text()
            if reply.status != 200:
                raise SessionError(f"{self.dialect} turn {number}: {reply.status} {text[:2000]}")
        if self.path.startswith("/v1/chat/") and self.body.get("stream"):
            answer = _completion_of_chunks(text)
        elif self.streamed:
            answer = _completed_response(text)
        else:
            answer = json.loads(text)
        usage = self.usage(answer)
        self.grow(self, answer, number)
        return usage


def _headers(captured: dict[str, Any]) -> dict[str, str]:
    return {k: str(v) for k, v in captured.items() if k.lower() not in _HOP_HEADERS}


def _completed_response(text: str) -> Any:
    """The final Response of a Responses event stream."""
    for line in text.splitlines():
        if line.startswith("data:") and '"response.completed"' in line:
            return json.loads(line.removeprefix("data:"))["response"]
    raise SessionError(f"no response.completed in {text[-2000:]}")


def _completion_of_chunks(text: str) -> Any:
    """A streamed chat completion (text only, as Aider's) put together: its text and usage."""
    content, usage = "", None
    for line in text.splitlines():
        data = line.removeprefix("data:").strip()
        if not line.startswith("data:") or data == "[DONE]":
            continue
        chunk = json.loads(data)
        for choice in chunk["choices"]:
            if choice["delta"].get("tool_calls"):
                raise SessionError(f"a tool call, but Aider offers no tools: {chunk}")
            content += choice["delta"].get("content") or ""
        usage = chunk.get("usage") or usage
    return {"choices": [{"message": {"role": "assistant", "content": content}}], "usage": usage}


def _result_text(number: int) -> str:
    return f"Output of the command for turn {number}:\nhi\nProcess exited with code 0"


def _user_text(number: int) -> str:
    return f"Thanks. Now, for step {number}, write hi into out-{number}.txt as well."


# --------------------------------------------------------------------------- Responses (Codex)


def codex_session(model: str = MODELS["responses"]) -> Session:
    body = json.loads((CLIENTS / "codex-shell-1.json").read_text(encoding="utf-8"))
    meta = json.loads((CLIENTS / "codex-shell-1.meta.json").read_text(encoding="utf-8"))
    body["model"] = model
    return Session(
        "responses",
        "/v1/responses",
        _headers(meta["headers"]),
        body,
        _grow_codex,
        _responses_usage,
        True,
    )


def _grow_codex(session: Session, response: Any, number: int) -> None:
    items: list[Any] = session.body["input"]
    calls = []
    for item in response["output"]:
        items.append(item)  # Codex keeps every output item (store false: it sends them all back)
        if item["type"] == "function_call":
            calls.append(item["call_id"])
    for call_id in calls:
        items.append(
            {"type": "function_call_output", "call_id": call_id, "output": _result_text(number)}
        )
    if not calls:
        items.append(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": _user_text(number)}],
            }
        )


def _responses_usage(response: Any) -> Usage:
    usage = response["usage"]
    return Usage(usage["input_tokens"], usage["input_tokens_details"]["cached_tokens"])


# --------------------------------------------------------------------------- Messages (Claude Code)


def claude_code_session(model: str = MODELS["messages"]) -> Session:
    captured = json.loads((CLAUDE_CODE / "bash-default-1.json").read_text(encoding="utf-8"))
    body = captured["body"]
    body["model"] = model
    body["stream"] = False
    return Session(
        "messages",
        captured["path"],
        _headers(captured["headers"]),
        body,
        _grow_claude,
        _messages_usage,
    )


def _grow_claude(session: Session, message: Any, number: int) -> None:
    messages: list[Any] = session.body["messages"]
    for earlier in messages:  # Claude Code marks only the newest block for caching
        if isinstance(earlier["content"], list):
            for block in earlier["content"]:
                block.pop("cache_control", None)
    messages.append({"role": "assistant", "content": copy.deepcopy(message["content"])})
    calls = [block["id"] for block in message["content"] if block["type"] == "tool_use"]
    if calls:
        blocks = [
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": _result_text(number),
                "is_error": False,
            }
            for call_id in calls
        ]
    else:
        blocks = [{"type": "text", "text": _user_text(number)}]
    blocks[-1]["cache_control"] = {"type": "ephemeral"}
    messages.append({"role": "user", "content": blocks})


def _messages_usage(message: Any) -> Usage:
    usage = message["usage"]
    cached = usage["cache_read_input_tokens"]
    # Anthropic's input_tokens are the tokens after the last cache breakpoint: the whole
    # input adds what was read from and written to the cache.
    whole = usage["input_tokens"] + cached + usage["cache_creation_input_tokens"]
    return Usage(whole, cached)


# ------------------------------------------------------------------- Chat Completions (Aider)


def aider_session(model: str = MODELS["chat"]) -> Session:
    captured = json.loads((FIXTURES / "aider" / "diff-gpt-4.1-1.json").read_text(encoding="utf-8"))
    body = captured["body"]
    body["model"] = model
    body["stream_options"] = {"include_usage": True}  # Aider streams; usage comes when asked
    return Session(
        "chat", captured["path"], _headers(captured["headers"]), body, _grow_chat, _chat_usage
    )


def _grow_chat(session: Session, completion: Any, number: int) -> None:
    messages: list[Any] = session.body["messages"]
    answer = completion["choices"][0]["message"]
    kept = {
        k: v for k, v in answer.items() if k in ("role", "content", "tool_calls") and v is not None
    }
    messages.append(kept)
    calls = [call["id"] for call in answer.get("tool_calls") or []]
    for call_id in calls:
        messages.append({"role": "tool", "tool_call_id": call_id, "content": _result_text(number)})
    if not calls:
        messages.append({"role": "user", "content": _user_text(number)})


def _chat_usage(completion: Any) -> Usage:
    usage = completion["usage"]
    return Usage(usage["prompt_tokens"], usage["prompt_tokens_details"]["cached_tokens"])


# --------------------------------------------------------------------------- Gemini (Gemini CLI)


def gemini_cli_session(model: str = MODELS["gemini"]) -> Session:
    captured = json.loads(
        (FIXTURES / "gemini_cli" / "shell-auto-2.json").read_text(encoding="utf-8")
    )
    path = f"/v1beta/models/{model}:generateContent"
    return Session(
        "gemini", path, _headers(captured["headers"]), captured["body"], _grow_gemini, _gemini_usage
    )


def _grow_gemini(session: Session, response: Any, number: int) -> None:
    contents: list[Any] = session.body["contents"]
    content = response["candidates"][0]["content"]
    contents.append(copy.deepcopy(content))
    calls = [part["functionCall"] for part in content["parts"] if "functionCall" in part]
    parts: list[dict[str, Any]]
    if calls:
        parts = [
            {
                "functionResponse": {
                    "name": call["name"],
                    "id": call.get("id"),
                    "response": {"output": _result_text(number)},
                }
            }
            for call in calls
        ]
    else:
        parts = [{"text": _user_text(number)}]
    contents.append({"role": "user", "parts": parts})


def _gemini_usage(response: Any) -> Usage:
    usage = response["usageMetadata"]
    return Usage(usage["promptTokenCount"], usage.get("cachedContentTokenCount", 0))


# ------------------------------------------------------------------- per-turn variations
# What agents change from one request to the next besides appending turns: a tool call
# required on some turns, a structured answer on one, system text added mid-session. The
# bridge puts what holds for one answer after the history; the history keeps its bytes.

FORMAT_SCHEMA = {
    "type": "object",
    "properties": {"done": {"type": "boolean"}, "note": {"type": "string"}},
    "required": ["done", "note"],
    "additionalProperties": False,
}


def _vary_codex(body: dict[str, Any], number: int) -> None:
    body["tool_choice"] = "required" if number % 2 == 0 else "auto"
    if number == 3:
        body["text"] = {
            "format": {"type": "json_schema", "name": "status", "schema": FORMAT_SCHEMA}
        }
        text = "<permissions instructions>Approval is on-request now.</permissions instructions>"
        body["input"].append(
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": text}],
            }
        )
    else:
        body["text"] = {"verbosity": "low"}


def _vary_claude(body: dict[str, Any], number: int) -> None:
    body["tool_choice"] = {"type": "any"} if number % 2 == 0 else {"type": "auto"}
    body.pop("output_config", None)
    if number == 3:
        body["output_config"] = {"format": {"type": "json_schema", "schema": FORMAT_SCHEMA}}
        body["messages"].append({"role": "system", "content": "The user switched to plan mode."})


def _vary_aider(body: dict[str, Any], number: int) -> None:
    body.pop("response_format", None)
    if number == 3:
        body["response_format"] = {"type": "json_object"}
        body["messages"].append({"role": "system", "content": "Reply in JSON this time."})


def _vary_gemini(body: dict[str, Any], number: int) -> None:
    mode = "ANY" if number % 2 == 0 else "AUTO"
    body["toolConfig"] = {"functionCallingConfig": {"mode": mode}}
    config = body.setdefault("generationConfig", {})
    for key in ("responseMimeType", "responseSchema"):
        config.pop(key, None)
    if number == 3:
        config["responseMimeType"] = "text/x.enum"
        config["responseSchema"] = {"type": "STRING", "enum": ["done", "not done"]}


VARIATIONS: dict[str, Callable[[dict[str, Any], int], None]] = {
    "responses": _vary_codex,
    "messages": _vary_claude,
    "chat": _vary_aider,
    "gemini": _vary_gemini,
}


def varied_session(dialect: str) -> Session:
    session = SESSIONS[dialect]()
    session.vary = VARIATIONS[dialect]
    return session


SESSIONS: dict[str, Callable[[], Session]] = {
    "responses": codex_session,
    "messages": claude_code_session,
    "chat": aider_session,
    "gemini": gemini_cli_session,
}
