"""The baseline: the least an aiohttp server can do to stream the same Responses events.

No validation, no conversion, no JSON-RPC hop: it reads the number of deltas from `input`,
then writes one SSE event per `await response.write`, JSON-encoding each event, exactly the
events the bridge sends for a `sim-bench` answer. This is the physical limit of the stack.

Run: `python -m bench.baseline --port PORT`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator
from typing import Any

from aiohttp import web

SSE_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",
}
WORD = "tok "


def _response(status: str, text: str | None) -> dict[str, Any]:
    output = []
    if text is not None:
        output = [
            {
                "type": "message",
                "id": "msg_baseline",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
                ],
            }
        ]
    return {
        "id": "resp_baseline",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": "sim-bench",
        "output": output,
        "usage": None,
    }


def events(count: int) -> Iterator[dict[str, Any]]:
    ref = {"item_id": "msg_baseline", "output_index": 0, "content_index": 0}
    part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
    yield {"type": "response.created", "response": _response("in_progress", None)}
    yield {"type": "response.in_progress", "response": _response("in_progress", None)}
    item: dict[str, Any] = {
        "type": "message",
        "id": "msg_baseline",
        "status": "in_progress",
        "role": "assistant",
    }
    yield {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}}
    yield {"type": "response.content_part.added", **ref, "part": part}
    for _ in range(count):
        yield {"type": "response.output_text.delta", **ref, "delta": WORD, "logprobs": []}
    text = WORD * count
    done = {**part, "text": text}
    yield {"type": "response.output_text.done", **ref, "text": text, "logprobs": []}
    yield {"type": "response.content_part.done", **ref, "part": done}
    item = {**item, "status": "completed", "content": [done]}
    yield {"type": "response.output_item.done", "output_index": 0, "item": item}
    yield {"type": "response.completed", "response": _response("completed", text)}


async def create_response(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    count = int(body.get("input", 1))
    response = web.StreamResponse(headers=SSE_HEADERS)
    await response.prepare(request)
    for sequence, event in enumerate(events(count)):
        event["sequence_number"] = sequence
        data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
        await response.write(f"event: {event['type']}\ndata: {data}\n\n".encode())
    return response


async def models(request: web.Request) -> web.Response:
    return web.json_response({"object": "list", "data": [{"id": "sim-bench", "object": "model"}]})


def create_app() -> web.Application:
    app = web.Application()
    app.router.add_post("/v1/responses", create_response)
    app.router.add_get("/v1/models", models)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    web.run_app(create_app(), host=args.host, port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
