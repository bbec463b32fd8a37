"""Who may load the usage page and what its script may read, against real `serve` processes.

The HTML (`GET /usage`) carries no data: any navigation may load it without the key (VS Code
frames it in a webview, a cross-site frame), behind the Host check. Its reads of `/v1/usage`
from the bridge's own origin (`Sec-Fetch-Site: same-origin`) pass the Origin check and still
need the key; nothing else gains from being same-origin.
"""

from __future__ import annotations

import json
import re
from datetime import date

from conftest import BridgeServer, StartServer
from test_security import BODY, error_of, request

KEY = "access-test-key"
CROSS_SITE_FRAME = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Dest": "iframe"}


def own_origin(server: BridgeServer) -> str:
    return server.root_url


def test_page_loads_in_any_frame_without_the_key_and_says_what_it_may_run(
    bridge_server_factory: StartServer,
) -> None:
    server = bridge_server_factory("--api-key", KEY)
    for headers in ({}, {"Sec-Fetch-Site": "none"}, CROSS_SITE_FRAME):
        status, got, raw = request(server, "GET", "/usage", headers=headers)
        assert status == 200, raw
        assert got["content-type"].startswith("text/html")
        assert KEY.encode() not in raw
    policy = got["content-security-policy"]
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["connect-src"] == "'self'"
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/=]+'", directives["script-src"])
    assert "https:" not in raw.decode() and "http:" not in raw.decode().replace(
        "http://www.w3.org/2000/svg", ""
    ), "the page must make no request but to the bridge"
    assert "access-control-allow-origin" not in got


def test_page_keeps_the_host_check(bridge_server: BridgeServer) -> None:
    status, _, raw = request(bridge_server, "GET", "/usage", host="evil.example")
    error_of(status, raw, 403, "host_not_allowed")


def test_page_reads_usage_from_its_own_origin_only(bridge_server: BridgeServer) -> None:
    same = {"Sec-Fetch-Site": "same-origin"}
    status, _, raw = request(bridge_server, "GET", "/v1/usage", headers=same)
    assert status == 200 and json.loads(raw)["object"] == "usage", raw
    with_origin = {**same, "Origin": own_origin(bridge_server)}
    status, _, raw = request(bridge_server, "GET", "/v1/usage", headers=with_origin)
    assert status == 200, raw
    for refused in (
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost:1"},
    ):
        status, _, raw = request(bridge_server, "GET", "/v1/usage", headers=refused)
        error_of(status, raw, 403, "origin_not_allowed")
    # Only the page's read: the API itself stays closed to pages, its own origin included.
    status, _, raw = request(bridge_server, "POST", "/v1/responses", BODY, headers=same)
    error_of(status, raw, 403, "origin_not_allowed")


def test_page_reads_need_the_key(bridge_server_factory: StartServer) -> None:
    server = bridge_server_factory("--api-key", KEY)
    same = {"Sec-Fetch-Site": "same-origin"}
    status, _, raw = request(server, "GET", "/v1/usage", headers=same)
    error_of(status, raw, 401, "invalid_api_key")
    status, _, raw = request(
        server, "GET", "/v1/usage", headers={**same, "Authorization": f"Bearer {KEY}"}
    )
    assert status == 200, raw


def test_usage_takes_today_for_its_days(bridge_server: BridgeServer) -> None:
    """What the VS Code status bar asks for: the bridge's own local day."""
    status, _, raw = request(bridge_server, "GET", "/v1/usage?since=today&recent=0")
    assert status == 200, raw
    body = json.loads(raw)
    assert body["since"] == body["until"] == date.today().isoformat() and body["recent"] == []
    status, _, raw = request(bridge_server, "GET", "/v1/usage?until=today")
    assert status == 200 and json.loads(raw)["until"] == date.today().isoformat(), raw
    status, _, raw = request(bridge_server, "GET", "/v1/usage?since=tomorrow")
    assert status == 400 and json.loads(raw)["error"]["param"] == "since", raw
