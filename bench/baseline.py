"""The baselines: the least an aiohttp server can do to stream the same Responses events.

No validation, no conversion, no JSON-RPC hop: it reads the number of deltas from `input`,
then writes one SSE event per `await response.write`, JSON-encoding each event, exactly the
events the bridge sends for a `sim-bench` answer. This is the physical limit of the stack.
Two encoders, two baselines: the json module (`--encoder json`, the default) and orjson
(`--encoder orjson`, a raw writer with the fastest encoder there is; a bench/test dependency).

Run: `python -m bench.baseline --port PORT [--encoder orjson]`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
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


Encoder = Callable[[dict[str, Any]], bytes]  # one event -> its SSE frame


def json_frame(event: dict[str, Any]) -> bytes:
    data = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


def orjson_frame(event: dict[str, Any]) -> bytes:
    import orjson  # the test extra's: only the orjson baseline needs it

    return b"event: %s\ndata: %s\n\n" % (event["type"].encode(), orjson.dumps(event))


ENCODERS: dict[str, Encoder] = {"json": json_frame, "orjson": orjson_frame}


def create_app(encoder: Encoder = json_frame) -> web.Application:
    async def create_response(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        count = int(body.get("input", 1))
        response = web.StreamResponse(headers=SSE_HEADERS)
        await response.prepare(request)
        for sequence, event in enumerate(events(count)):
            event["sequence_number"] = sequence
            await response.write(encoder(event))
        return response

    app = web.Application()
    app.router.add_post("/v1/responses", create_response)
    app.router.add_get("/v1/models", models)
    return app


async def models(request: web.Request) -> web.Response:
    return web.json_response({"object": "list", "data": [{"id": "sim-bench", "object": "model"}]})


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.baseline")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--encoder", choices=list(ENCODERS), default="json")
    args = parser.parse_args()
    app = create_app(ENCODERS[args.encoder])
    web.run_app(app, host=args.host, port=args.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
