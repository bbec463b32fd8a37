"""Plain HTTP in each of the four dialects, for the tests of how Copilot's errors are answered
(tests/test_e2e_copilot_errors.py): one request shape per dialect, and its answer read back
after checking it against the dialect's schema (the same validators the other tests use).

`Outcome` is the dialect-neutral view a test asserts on: the HTTP status, the error (its
message and the dialect's own error code or type) or the answer's text and end reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anthropic_validation
import chat_validation
import gemini_validation
import spec_validation
from conftest import BridgeServer
from plain_http import Reply, post

DIALECTS = ("responses", "chat", "anthropic", "gemini")
MODEL = "sim-echo"


@dataclass
class Outcome:
    status: int
    headers: dict[str, str]
    error_code: str | None = None  # responses/chat: error.code; anthropic: type; gemini: status
    error_message: str = ""
    text: str = ""
    end: str | None = None  # the answer's end: finish_reason / stop_reason / incomplete reason
    raw: Any = None  # the validated answer, error body or terminal event


def ask(server: BridgeServer, dialect: str, prompt: str, stream: bool) -> Outcome:
    reply = _post(server, dialect, prompt, stream)
    if reply.status_code != 200:
        return _http_error(dialect, reply)
    if stream:
        return _streamed(dialect, reply)
    return _answered(dialect, reply)


def _post(server: BridgeServer, dialect: str, prompt: str, stream: bool) -> Reply:
    if dialect == "responses":
        body = {"model": MODEL, "input": prompt, "stream": stream}
        return post(f"{server.base_url}/responses", body)
    if dialect == "chat":
        messages = [{"role": "user", "content": prompt}]
        return post(
            f"{server.base_url}/chat/completions",
            {"model": MODEL, "messages": messages, "stream": stream},
        )
    if dialect == "anthropic":
        messages = [{"role": "user", "content": prompt}]
        body = {"model": MODEL, "max_tokens": 1000, "messages": messages, "stream": stream}
        return post(
            f"{server.base_url}/messages", body, headers={"anthropic-version": "2023-06-01"}
        )
    action = "streamGenerateContent?alt=sse" if stream else "generateContent"
    url = f"{server.root_url}/v1beta/models/{MODEL}:{action}"
    return post(url, {"contents": [{"role": "user", "parts": [{"text": prompt}]}]})


def _http_error(dialect: str, reply: Reply) -> Outcome:
    body = reply.json()
    outcome = Outcome(reply.status_code, reply.headers, raw=body)
    if dialect == "anthropic":
        anthropic_validation.validate_error(body)
        outcome.error_code = body["error"]["type"]
    elif dialect == "gemini":
        gemini_validation.validate_error(body, reply.status_code)
        outcome.error_code = body["error"]["status"]
    else:
        if dialect == "chat":
            chat_validation.validate_error(body)
        assert set(body["error"]) == {"message", "type", "param", "code"}, body
        outcome.error_code = body["error"]["code"]
    outcome.error_message = body["error"]["message"]
    return outcome


def _streamed(dialect: str, reply: Reply) -> Outcome:
    outcome = Outcome(reply.status_code, reply.headers)
    if dialect == "responses":
        response = spec_validation.validate_stream(spec_validation.parse_sse(reply.text))
        return _response(outcome, response)
    if dialect == "chat":
        sse = chat_validation.parse_sse(reply.text)
        if any(isinstance(chunk, dict) and "error" in chunk for chunk in sse.chunks):
            error = chat_validation.check_failed_stream(sse.chunks)
            outcome = _failed(outcome, error, error["error"]["code"], sse.chunks)
            outcome.text = "".join(
                choice["delta"].get("content") or ""
                for chunk in sse.chunks
                if isinstance(chunk, dict) and "choices" in chunk
                for choice in chunk["choices"]
            )
            return outcome
        return _completion(outcome, chat_validation.check_stream(sse.chunks))
    if dialect == "anthropic":
        result = anthropic_validation.check_stream(anthropic_validation.parse_sse(reply.text))
        if result.error is not None:
            error = result.error
            return _failed(outcome, error, error["error"]["type"], result.events)
        assert result.message is not None
        return _message(outcome, result.message)
    chunks = gemini_validation.parse_sse(reply.text).chunks
    if any("error" in chunk for chunk in chunks):
        error = gemini_validation.check_failed_stream(chunks)
        outcome = _failed(outcome, error, error["error"]["status"], chunks)
        outcome.text = _gemini_text(chunks[:-1])
        return outcome
    return _gemini(outcome, gemini_validation.check_stream(chunks))


def _answered(dialect: str, reply: Reply) -> Outcome:
    body = reply.json()
    outcome = Outcome(reply.status_code, reply.headers)
    if dialect == "responses":
        spec_validation.validate_response(body)
        return _response(outcome, body)
    if dialect == "chat":
        chat_validation.validate_completion(body)
        return _completion(outcome, body)
    if dialect == "anthropic":
        anthropic_validation.validate_message(body)
        return _message(outcome, body)
    gemini_validation.validate_answer(body)
    return _gemini(outcome, body)


def _failed(outcome: Outcome, error: dict[str, Any], code: str, seen: Any) -> Outcome:
    outcome.raw, outcome.error_code = seen, code
    outcome.error_message = error["error"]["message"]
    outcome.end = "failed"
    return outcome


def _response(outcome: Outcome, response: dict[str, Any]) -> Outcome:
    outcome.raw = response
    outcome.text = "".join(
        part.get("text", "")
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
    )
    if response["status"] == "failed":
        outcome.end = "failed"
        outcome.error_code = response["error"]["code"]
        outcome.error_message = response["error"]["message"]
    elif response["status"] == "incomplete":
        outcome.end = response["incomplete_details"]["reason"]
    else:
        outcome.end = response["status"]
    return outcome


def _completion(outcome: Outcome, completion: dict[str, Any]) -> Outcome:
    outcome.raw = completion
    choice = completion["choices"][0]
    outcome.text = choice["message"].get("content") or ""
    outcome.end = choice["finish_reason"]
    return outcome


def _message(outcome: Outcome, message: dict[str, Any]) -> Outcome:
    outcome.raw = message
    outcome.text = "".join(b["text"] for b in message["content"] if b["type"] == "text")
    outcome.end = message["stop_reason"]
    return outcome


def _gemini(outcome: Outcome, answer: dict[str, Any]) -> Outcome:
    outcome.raw = answer
    outcome.text = _gemini_text([answer])
    outcome.end = answer["candidates"][0]["finishReason"]
    return outcome


def _gemini_text(chunks: list[Any]) -> str:
    return "".join(
        part.get("text", "")
        for chunk in chunks
        for candidate in chunk.get("candidates") or []
        for part in (candidate.get("content") or {}).get("parts") or []
        if not part.get("thought")
    )
