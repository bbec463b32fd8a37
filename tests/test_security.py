"""Access rules against real `maestro-bridge serve` processes: bind address, Host allowlist
(DNS rebinding), browser origins, CORS, the API key and what /health and the logs reveal."""

from __future__ import annotations

import http.client
import json
import os
import sys
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from conftest import REPO_ROOT, BridgeServer, StartServer
from processes import SESSION_ENV, run

from bridge.app import create_app
from bridge.http.bind_policy import BindRefused, check_bind, is_loopback_host
from bridge.http.security import AccessPolicy
from bridge.settings import BridgeSettings
from headless_editor.simulated_model import SimulatedModel

BODY = {"model": "sim-echo", "input": "hi"}


def request(
    server: BridgeServer,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
    host: str | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One raw HTTP request; `host` replaces the Host header ("" sends none at all)."""
    parts = urlsplit(server.root_url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_host=host is not None, skip_accept_encoding=True)
        if host:
            conn.putheader("Host", host)
        data = json.dumps(body).encode() if body is not None else b""
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        for name, value in all_headers.items():
            conn.putheader(name, value)
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def error_of(status: int, raw: bytes, expected_status: int, code: str) -> dict[str, Any]:
    assert status == expected_status, raw
    error = json.loads(raw)["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["code"] == code
    return dict(error)


def port_of(server: BridgeServer) -> int:
    return urlsplit(server.root_url).port or 0


# --------------------------------------------------------------------------- Host allowlist


@pytest.mark.parametrize("path", ["/v1/responses", "/v1/models", "/health", "/nowhere"])
def test_foreign_host_header_is_refused(bridge_server: BridgeServer, path: str) -> None:
    port = port_of(bridge_server)
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"):
        method = "POST" if path.endswith("responses") else "GET"
        status, headers, raw = request(bridge_server, method, path, BODY, host=host)
        error = error_of(status, raw, 403, "host_not_allowed")
        assert error["type"] == "permission_error"
        assert "access-control-allow-origin" not in headers


def test_missing_host_header_is_refused(bridge_server: BridgeServer) -> None:
    # aiohttp's parser already refuses HTTP/1.1 without Host (400); no route is reached.
    status, _, raw = request(bridge_server, "GET", "/v1/models", host="")
    assert status in (400, 403), raw
    assert b'"data"' not in raw


def test_loopback_names_are_accepted(bridge_server: BridgeServer) -> None:
    port = port_of(bridge_server)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "LOCALHOST"):
        status, _, raw = request(bridge_server, "POST", "/v1/responses", BODY, host=host)
        assert status == 200, (host, raw)
        assert json.loads(raw)["status"] == "completed"


def test_allowed_host_adds_a_name(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--allowed-host", "bridge.test")
    port = port_of(server)
    status, _, raw = request(server, "GET", "/v1/models", host=f"bridge.test:{port}")
    assert status == 200, raw
    status, _, raw = request(server, "GET", "/v1/models", host=f"other.test:{port}")
    error_of(status, raw, 403, "host_not_allowed")


# --------------------------------------------------------------------------- browsers, CORS


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1"},  # another local page (another port) is a web page too
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "https://evil.example", "Sec-Fetch-Site": "none"},
    ],
)
def test_requests_from_web_pages_are_refused(
    bridge_server: BridgeServer, headers: dict[str, str]
) -> None:
    for method, path in (("POST", "/v1/responses"), ("GET", "/v1/models"), ("GET", "/health")):
        status, got, raw = request(bridge_server, method, path, BODY, headers=headers)
        error_of(status, raw, 403, "origin_not_allowed")
        assert "access-control-allow-origin" not in got
    # A preflight gets no CORS blessing either.
    status, got, _ = request(
        bridge_server,
        "OPTIONS",
        "/v1/responses",
        headers={**headers, "Access-Control-Request-Method": "POST"},
    )
    assert status == 403
    assert "access-control-allow-origin" not in got


def test_typed_url_is_not_a_web_page(bridge_server: BridgeServer) -> None:
    status, headers, raw = request(
        bridge_server, "GET", "/v1/models", headers={"Sec-Fetch-Site": "none"}
    )
    assert status == 200, raw
    assert "access-control-allow-origin" not in headers


def test_allowed_origin_gets_cors_for_itself_only(bridge_server_factory: StartServer) -> None:
    app = "http://app.test:8080"
    server = bridge_server_factory("--allowed-origin", app)
    origin = {"Origin": app, "Sec-Fetch-Site": "cross-site"}
    status, headers, raw = request(server, "POST", "/v1/responses", BODY, headers=origin)
    assert status == 200, raw
    assert headers["access-control-allow-origin"] == app
    assert "origin" in headers["vary"].lower()
    # Streams carry it too (the header must be set before the first byte).
    status, headers, raw = request(
        server, "POST", "/v1/responses", {**BODY, "stream": True}, headers=origin
    )
    assert status == 200
    assert headers["access-control-allow-origin"] == app
    assert b"response.completed" in raw
    # The preflight: answered without a key, for that origin only.
    status, headers, _ = request(
        server,
        "OPTIONS",
        "/v1/responses",
        headers={
            "Origin": app,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type",
        },
    )
    assert status == 204
    assert headers["access-control-allow-origin"] == app
    assert "POST" in headers["access-control-allow-methods"]
    assert headers["access-control-allow-headers"] == "authorization, content-type"
    status, _, raw = request(
        server, "GET", "/v1/models", headers={"Origin": "http://app.test:8081"}
    )
    error_of(status, raw, 403, "origin_not_allowed")


# --------------------------------------------------------------------------- API key


def test_api_key_is_required_and_health_reveals_nothing(
    bridge_server_factory: StartServer,
) -> None:
    key = "k3y-that-must-stay-secret"
    server = bridge_server_factory(env={"MAESTRO_BRIDGE_API_KEY": key})
    for headers in ({}, {"Authorization": f"Bearer {key}x"}, {"x-api-key": key[:-1]}):
        status, _, raw = request(server, "POST", "/v1/responses", BODY, headers=headers)
        error = error_of(status, raw, 401, "invalid_api_key")
        assert key not in error["message"]
    for headers in ({"Authorization": f"Bearer {key}"}, {"x-api-key": key}):
        status, _, raw = request(server, "POST", "/v1/responses", BODY, headers=headers)
        assert status == 200, raw
    # /health answers without the key, and says only that the bridge is up.
    status, _, raw = request(server, "GET", "/health")
    assert status == 200
    assert set(json.loads(raw)) == {"status", "service", "version"}
    assert key.encode() not in raw
    # The Host and Origin checks come first, also for /health.
    status, _, raw = request(server, "GET", "/health", host="evil.example")
    error_of(status, raw, 403, "host_not_allowed")


def test_api_key_never_reaches_the_logs(bridge_server_factory: StartServer) -> None:
    """At DEBUG the language server logs whole JSON-RPC messages (the editor's initialize
    options hold the key): the key and bearer tokens sent by clients must be blanked."""
    key = "k3y-for-the-log-test"
    server = bridge_server_factory(
        env={"MAESTRO_BRIDGE_API_KEY": key, "MAESTRO_BRIDGE_LOG_LEVEL": "DEBUG"}
    )
    request(server, "POST", "/v1/responses", BODY, headers={"Authorization": f"Bearer {key}"})
    request(server, "POST", "/v1/responses", BODY, headers={"Authorization": "Bearer guess-123"})
    request(server, "POST", "/v1/responses", BODY, headers={"x-api-key": key})
    log = server.stderr_text()
    assert "initializationOptions" in log or "initialize" in log  # DEBUG logging is on
    assert key not in log
    assert "guess-123" not in log
    assert key not in "".join(server.stdout_lines)  # nor the banner


# --------------------------------------------------------------------------- bind address


def test_loopback_names() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "a.localhost"):
        assert is_loopback_host(host), host
    for host in ("0.0.0.0", "::", "", "192.168.1.2", "example.com", "localhost.example.com"):
        assert not is_loopback_host(host), host


def test_non_loopback_bind_needs_allow_remote_and_a_key() -> None:
    check_bind("127.0.0.1", allow_remote=False, api_key=None)
    with pytest.raises(BindRefused, match="--allow-remote"):
        check_bind("0.0.0.0", allow_remote=False, api_key="k")
    with pytest.raises(BindRefused, match="API key"):
        check_bind("0.0.0.0", allow_remote=True, api_key=None)
    check_bind("0.0.0.0", allow_remote=True, api_key="k")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "--allow-remote"),
        (["--host", "0.0.0.0", "--allow-remote"], "API key"),
        (["--host", "192.168.77.1", "--api-key", "k"], "--allow-remote"),
    ],
)
def test_serve_refuses_a_non_loopback_bind(args: list[str], message: str) -> None:
    result = run(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", *args],
        cwd=REPO_ROOT,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(REPO_ROOT),
            SESSION_ENV: os.environ[SESSION_ENV],  # ours, should it start after all
        },
    )
    assert result.returncode == 2, result
    assert "Refusing to listen" in result.stderr and message in result.stderr
    assert "Listening on" not in result.stdout


async def test_language_server_refuses_a_non_loopback_bind() -> None:
    """The editor's options are checked by the language server itself, not only by `serve`."""
    from headless_editor.editor import EditorStartError, HeadlessEditor

    editor = HeadlessEditor()
    with pytest.raises(EditorStartError, match=r"Refusing to listen on '0\.0\.0\.0'"):
        await editor.start({"host": "0.0.0.0", "port": 0, "apiKey": "k"})
    assert editor.process is not None and editor.process.returncode is not None


def test_wildcard_bind_does_not_allow_any_host() -> None:
    policy = AccessPolicy(BridgeSettings(host="0.0.0.0", allowRemote=True, apiKey="k"))
    assert not policy.host_allowed("0.0.0.0:80") and not policy.host_allowed("evil.example")
    policy = AccessPolicy(BridgeSettings(host="10.1.2.3", allowedHosts=["box.lan"]))
    assert policy.host_allowed("10.1.2.3:99") and policy.host_allowed("box.lan")
    assert AccessPolicy(BridgeSettings(allowedHosts=["*"])).host_allowed("anything")


def test_serve_flags_become_initialization_options() -> None:
    from bridge.cli import _parser, _security_options

    args = _parser().parse_args(
        [
            "serve",
            "--allow-remote",
            "--allowed-host",
            "a.test",
            "--allowed-host",
            "b.test",
            "--allowed-origin",
            "https://app.test",
            "--max-concurrent",
            "3",
            "--idle-timeout",
            "1.5",
            "--total-timeout",
            "60",
        ]
    )
    settings = BridgeSettings.from_options(_security_options(args))
    assert settings.allowRemote and settings.allowedHosts == ["a.test", "b.test"]
    assert settings.allowedOrigins == ["https://app.test"]
    assert settings.limits.maxConcurrentRequests == 3
    assert settings.limits.idleTimeoutSeconds == 1.5
    assert settings.limits.totalTimeoutSeconds == 60
    defaults = BridgeSettings.from_options(_security_options(_parser().parse_args(["serve"])))
    assert defaults == BridgeSettings()


# --------------------------------------------------------------------------- every route


class _ModelsOnly:
    """Backend for an in-process app (no editor needed: only routing is exercised)."""

    async def list_models(self) -> Any:
        return SimulatedModel().models()

    async def count_tokens(self, model: str, text: str) -> int:
        return 0

    def chat(self, request: Any) -> Any:
        raise AssertionError("not called")


async def test_checks_cover_routes_added_later() -> None:
    """Routes added after create_app (such as the WebSocket GET /v1/responses) are covered."""
    app = create_app(_ModelsOnly(), BridgeSettings(apiKey="k"))

    async def extra(request: web.Request) -> web.Response:
        return web.json_response({"reached": True})

    app.router.add_get("/v1/extra", extra)
    async with TestClient(TestServer(app)) as client:
        ok = {"Authorization": "Bearer k"}
        resp = await client.get("/v1/extra", headers=ok)
        assert resp.status == 200
        resp = await client.get("/v1/extra", headers={**ok, "Host": "evil.example"})
        assert resp.status == 403
        resp = await client.get("/v1/extra", headers={**ok, "Origin": "https://evil.example"})
        assert resp.status == 403
        resp = await client.get("/v1/extra")
        assert resp.status == 401
