"""Tests of the FAKE GitHub API sign-in routes of tests/fake_capi (github_routes.py), which
Copilot Chat calls on the production sign-in route of the tests (the real GitHub cannot be
reached here): their answers, their refusal without the test session's token, their serving of
what a forward proxy passes on (absolute-form request lines, chunked bodies), and that proxy
(forward_proxy.py: tunnels to allowed hosts only)."""

from __future__ import annotations

import json
import socket
from typing import Any

from fake_capi import FakeCapi, github_routes
from fake_capi.forward_proxy import forward_proxy
from pytest_aiohttp import AiohttpClient

AUTH = {"Authorization": f"token {github_routes.GITHUB_TOKEN}"}
# Every field Copilot Chat 0.67's strict token schema requires.
TOKEN_FIELDS = {
    "token",
    "expires_at",
    "refresh_in",
    "sku",
    "individual",
    "blackbird_clientside_indexing",
    "code_quote_enabled",
    "code_review_enabled",
    "codesearch",
    "copilotignore_enabled",
    "public_suggestions",
    "telemetry",
    "endpoints",
    "organization_list",
}


async def test_token_points_every_endpoint_at_the_fake(aiohttp_client: AiohttpClient) -> None:
    client = await aiohttp_client(FakeCapi().app())
    reply = await client.get(github_routes.TOKEN_PATH, headers=AUTH)
    assert reply.status == 200
    token = await reply.json()
    assert set(token) >= TOKEN_FIELDS
    assert token["token"] == github_routes.COPILOT_TOKEN
    assert token["expires_at"] > token["refresh_in"] > 0
    own = f"http://127.0.0.1:{client.port}"
    assert token["endpoints"] == {
        name: own for name in ("api", "proxy", "telemetry", "origin-tracker", "exp")
    }


async def test_user_routes(aiohttp_client: AiohttpClient) -> None:
    client = await aiohttp_client(FakeCapi().app())
    info = await (await client.get(github_routes.USER_INFO_PATH, headers=AUTH)).json()
    assert info["copilot_plan"] == "business" and info["chat_enabled"] is True
    user = await (await client.get(github_routes.USER_PATH, headers=AUTH)).json()
    assert user["login"] == github_routes.GITHUB_LOGIN


async def test_without_the_session_token_github_says_bad_credentials(
    aiohttp_client: AiohttpClient,
) -> None:
    client = await aiohttp_client(FakeCapi().app())
    for path in github_routes.PATHS:
        for headers in ({}, {"Authorization": "token someone-else"}):
            reply = await client.get(path, headers=headers)
            assert reply.status == 401, path
            assert (await reply.json())["message"] == "Bad credentials"


def _raw(url: str, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """One raw HTTP/1.1 exchange with the server at `url`: status line, headers, body."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


def test_absolute_form_requests_are_served_by_path_whatever_the_host() -> None:
    """As VS Code's proxy support sends them to a plain HTTP forward proxy."""
    with FakeCapi() as capi:
        port = capi.url.rsplit(":", 1)[1]
        target = f"http://api.ghe.test:{port}{github_routes.TOKEN_PATH}"
        status, _, body = _raw(
            capi.url,
            f"GET {target} HTTP/1.1\r\nHost: api.ghe.test:{port}\r\n"
            f"Authorization: token {github_routes.GITHUB_TOKEN}\r\nConnection: close\r\n\r\n"
            "".encode(),
        )
        assert status.startswith("HTTP/1.1 200"), status
        assert json.loads(body)["endpoints"]["api"] == capi.url
        [got] = capi.requests_to(github_routes.TOKEN_PATH)
        assert got.header("host") == f"api.ghe.test:{port}"


def test_a_chunked_body_through_the_proxy_form() -> None:
    with FakeCapi() as capi:
        port = capi.url.rsplit(":", 1)[1]
        payload: dict[str, Any] = {
            "model": "gpt-4.1",
            "messages": [{"role": "user", "content": "chunked hello"}],
        }
        raw = json.dumps(payload).encode()
        half = len(raw) // 2
        chunks = b"".join(
            f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (raw[:half], raw[half:])
        )
        status, _, body = _raw(
            capi.url,
            f"POST http://127.0.0.1:{port}/chat/completions HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n".encode()
            + chunks
            + b"0\r\n\r\n",
        )
        assert status.startswith("HTTP/1.1 200"), (status, body)
        assert "chunked hello" in json.loads(body)["choices"][0]["message"]["content"]
        assert capi.last_body("/chat/completions") == payload


def test_the_forward_proxy_passes_absolute_form_and_tunnels_to_allowed_hosts_only() -> None:
    with FakeCapi() as capi, forward_proxy(capi.url, {"api.ghe.test"}) as proxy:
        port = capi.url.rsplit(":", 1)[1]
        token = f"GET {github_routes.TOKEN_PATH} HTTP/1.1\r\nHost: api.ghe.test:{port}\r\n"
        token += f"Authorization: token {github_routes.GITHUB_TOKEN}\r\nConnection: close\r\n\r\n"
        status, _, body = _raw(
            proxy.url, f"CONNECT api.ghe.test:{port} HTTP/1.1\r\n\r\n{token}".encode()
        )
        assert status.startswith("HTTP/1.1 200"), status
        tunnelled = body.partition(b"\r\n\r\n")[2]  # past the tunnelled answer's head
        assert json.loads(tunnelled)["endpoints"]["api"] == capi.url
        status, _, _ = _raw(proxy.url, b"CONNECT api.githubcopilot.com:443 HTTP/1.1\r\n\r\n")
        assert status.startswith("HTTP/1.1 403"), status
        absolute = token.replace(
            f"GET {github_routes.TOKEN_PATH}",
            f"GET http://api.ghe.test:{port}{github_routes.TOKEN_PATH}",
        )
        status, _, body = _raw(proxy.url, absolute.encode())
        assert status.startswith("HTTP/1.1 200"), status
        assert json.loads(body)["token"] == github_routes.COPILOT_TOKEN
        assert proxy.tunnelled() == [
            (f"api.ghe.test:{port}", True),
            ("api.githubcopilot.com:443", False),
        ]
        assert len(capi.requests_to(github_routes.TOKEN_PATH)) == 2
