"""One streaming request in any dialect: time to its first text delta, and whether it was whole.

The stream is parsed event by event (the streams here are one part long, so parsing costs
the client nothing worth saving): the text the model sent is gathered, and the request counts
as complete only with status 200, the dialect's closing event and exactly the text asked for.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

from bench.dialects import DIALECTS

PART_TEXT = "tok "  # each part sim-bench streams


@dataclass
class Outcome:
    status: int
    first_delta: float  # seconds from sending the request to the first text delta (0: none)
    text: str
    complete: bool  # the dialect's closing event arrived
    error: str = ""

    def ok(self, parts: int | None) -> bool:
        """Whole, with `parts` parts of sim-bench's text (None: any text, another model's)."""
        text_ok = bool(self.text) if parts is None else self.text == PART_TEXT * parts
        return self.status == 200 and self.complete and text_ok


def _text_and_end(dialect: str, event: str, data: Any) -> tuple[str, bool]:
    """The text delta one event carries, and whether it closes the stream."""
    if not isinstance(data, dict):
        return "", dialect == "chat" and data == "[DONE]"
    if dialect == "responses":
        if event == "response.output_text.delta":
            return str(data.get("delta", "")), False
        return "", event == "response.completed"
    if dialect == "messages":
        delta = data.get("delta") or {}
        if event == "content_block_delta" and delta.get("type") == "text_delta":
            return str(delta.get("text", "")), False
        return "", event == "message_stop"
    choices = data.get("choices") if dialect == "chat" else data.get("candidates")
    if not choices:
        return "", False
    if dialect == "chat":
        return str(choices[0].get("delta", {}).get("content") or ""), False
    parts = choices[0].get("content", {}).get("parts", [])
    text = "".join(p.get("text", "") for p in parts if not p.get("thought"))
    return text, choices[0].get("finishReason") == "STOP"


def _events(buffer: bytes) -> tuple[list[tuple[str, Any]], bytes]:
    """Whole SSE events in `buffer` as (event name, parsed data), and the unfinished rest."""
    *whole, rest = buffer.replace(b"\r\n", b"\n").split(b"\n\n")
    events: list[tuple[str, Any]] = []
    for raw in whole:
        name, data = "", []
        for line in raw.decode().split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            joined = "\n".join(data)
            events.append((name, joined if joined == "[DONE]" else json.loads(joined)))
    return events, rest


async def stream(
    session: aiohttp.ClientSession, url: str, dialect: str, body: bytes, model: str = "sim-bench"
) -> Outcome:
    """One request; `model` is in the path for Gemini (the others name it in the body)."""
    path = DIALECTS[dialect].path.replace("sim-bench", model)
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    started = time.perf_counter()
    first, texts, complete = 0.0, [], False
    try:
        async with session.post(url + path, data=body, headers=headers) as reply:
            if reply.status != 200:
                detail = (await reply.text())[:300]
                return Outcome(reply.status, 0, "", False, f"HTTP {reply.status}: {detail}")
            buffer = b""
            async for chunk in reply.content.iter_any():
                events, buffer = _events(buffer + chunk)
                for name, data in events:
                    text, end = _text_and_end(dialect, name, data)
                    if text and not first:
                        first = time.perf_counter() - started
                    texts.append(text)
                    complete = complete or end
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
        return Outcome(0, first, "".join(texts), False, f"{type(exc).__name__}: {exc}")
    return Outcome(200, first, "".join(texts), complete)
