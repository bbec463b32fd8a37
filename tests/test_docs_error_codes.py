"""Issue 45: the error codes page (docs/reference/errors.md) is read from the source; here a
real `serve` is asked to fail in many ways, in each dialect, and every code it answers must
be on the page, under that dialect or under every dialect, with the status it came with."""

from __future__ import annotations

from typing import Any

import aiohttp
from conftest import REPO_ROOT, BridgeServer

from scripts.reference.errors_page import DIALECT_FOLDERS, EVERY_DIALECT, OTHER_ENDPOINTS

TIMEOUT = aiohttp.ClientTimeout(total=60)
PAGE = REPO_ROOT / "docs/reference/errors.md"


def _sections() -> dict[str, str]:
    text = PAGE.read_text("utf-8")
    return {part.split("\n", 1)[0]: part.split("\n", 1)[1] for part in text.split("\n## ")[1:]}


def _listed(section: str, code: str, status: int) -> bool:
    return any(
        line.startswith(f"| `{code}` | {status} |") for line in _sections()[section].splitlines()
    )


async def _fail(
    http: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    async with http.request(method, url, **kwargs) as reply:
        return reply.status, await reply.json(content_type=None)


async def test_every_code_a_real_bridge_answers_is_on_the_page(bridge_server: BridgeServer) -> None:
    v1, root = bridge_server.base_url, bridge_server.root_url
    unknown = {"model": "no-such-model", "input": "hi"}
    responses, chat = DIALECT_FOLDERS["responses"], DIALECT_FOLDERS["chat"]
    # (section the code belongs to, request): OpenAI's envelope, or JSON-RPC's at /mcp.
    cases: list[tuple[str, str, str, dict[str, Any]]] = [
        (EVERY_DIALECT, "POST", f"{v1}/responses", {"json": unknown}),
        (EVERY_DIALECT, "POST", f"{v1}/responses", {"data": b"{not json"}),
        (EVERY_DIALECT, "GET", f"{v1}/no/such/path", {}),
        (EVERY_DIALECT, "POST", f"{v1}/responses", {"headers": {"Host": "evil.example"}}),
        (EVERY_DIALECT, "POST", f"{v1}/chat/completions", {"json": {"model": "sim-echo"}}),
        (responses, "GET", f"{v1}/responses/resp_1", {}),
        (responses, "POST", f"{v1}/responses/resp_1/cancel", {}),
        (responses, "GET", f"{v1}/responses", {}),
        (responses, "POST", f"{v1}/responses", {"json": {**unknown, "background": True}}),
        (
            chat,
            "POST",
            f"{v1}/chat/completions",
            {
                "json": {
                    "model": "sim-echo",
                    "n": 2,
                    "messages": [{"role": "user", "content": "hi"}],
                }
            },
        ),
        (OTHER_ENDPOINTS["mcp"], "POST", f"{root}/mcp", {"json": {"jsonrpc": "2.0"}}),
    ]
    seen = []
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        for section, method, url, kwargs in cases:
            status, body = await _fail(http, method, url, **kwargs)
            error = body["error"]
            code = error["data"]["code"] if section == OTHER_ENDPOINTS["mcp"] else error["code"]
            assert status >= 400 and code, (url, status, body)
            listed = _listed(section, code, status) or _listed(EVERY_DIALECT, code, status)
            assert listed, (section, code, status, body)
            seen.append(code)
        # Anthropic's and Google's envelopes carry the status's type and name, from the page.
        status, body = await _fail(
            http,
            "POST",
            f"{v1}/messages",
            json={
                "model": "no-such-model",
                "max_tokens": 9,
                "messages": [{"role": "user", "content": "hi"}],
            },
        )
        anthropic = body["error"]["type"]
        row = f"| `model_not_found` | {status} | `invalid_request_error` | `{anthropic}` |"
        assert row in PAGE.read_text("utf-8"), body
        status, body = await _fail(
            http,
            "POST",
            f"{root}/v1beta/models/no-such-model:generateContent",
            json={"contents": [{"parts": [{"text": "hi"}]}]},
        )
        gemini = f"`{body['error']['status']}` |"
        assert any(
            line.startswith(f"| `model_not_found` | {status} |") and gemini in line
            for line in PAGE.read_text("utf-8").splitlines()
        ), body
    assert len(set(seen)) >= 9, seen
