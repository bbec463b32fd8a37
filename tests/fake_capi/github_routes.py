"""A FAKE of the GitHub API routes Copilot Chat calls to sign in, for the production sign-in
route of the tests (tests/copilot_host.py, `signin="github-enterprise"`).

In production, Copilot takes the user's GitHub session from VS Code's authentication API and
exchanges its access token at the GitHub API for a Copilot token, whose `endpoints.api` says
where Copilot's cloud is. With `github.copilot.advanced.authProvider: "github-enterprise"`,
Copilot derives that API's URL from the `github-enterprise.uri` setting (`http://ghe.test:PORT`
gives `http://api.ghe.test:PORT`), a host name that resolves nowhere: VS Code's `http.proxy`
points at forward_proxy.py, whose every host is this fake. Requests arrive through its tunnels
or in absolute form (`GET http://api.ghe.test:PORT/copilot_internal/v2/token HTTP/1.1`), which
aiohttp routes by path whatever the host, so these routes serve them as a direct request.

FAKED here: `GET /copilot_internal/v2/token` (the Copilot token, `endpoints` at this fake),
`GET /copilot_internal/user` (the Copilot plan of the user) and `GET /user` (the user), each
401 unless `Authorization: token <GITHUB_TOKEN>` (what the test's authentication provider hands
out, editor-client/test-fixtures/github-enterprise-auth). The shapes are those Copilot Chat 0.67
validates (its token schema: every field below is required but `enterprise_list`).
"""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

GITHUB_TOKEN = "ghu_maestro_test_access_token"  # the test session's access token
GITHUB_LOGIN = "maestro-test"
COPILOT_TOKEN = "fake-capi-token"
TOKEN_PATH = "/copilot_internal/v2/token"
USER_INFO_PATH = "/copilot_internal/user"
USER_PATH = "/user"
PATHS = (TOKEN_PATH, USER_INFO_PATH, USER_PATH)


def add_routes(app: web.Application) -> None:
    """Adds the sign-in routes of the GitHub API to the fake's app."""
    app.router.add_get(TOKEN_PATH, _token)
    app.router.add_get(USER_INFO_PATH, _user_info)
    app.router.add_get(USER_PATH, _user)


def own_url(request: web.Request) -> str:
    """This fake's own root URL (`http://127.0.0.1:PORT`), whatever host the request named: a
    request forwarded as a proxy's names the GitHub Enterprise host."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    if not sockname:
        raise web.HTTPInternalServerError(text="the fake's own address is unknown")
    host, port = sockname[:2]
    return f"http://{host}:{port}"


def copilot_token(api_url: str, token: str = COPILOT_TOKEN) -> dict[str, Any]:
    """The Copilot token GitHub answers a signed-in user, every endpoint at `api_url`."""
    return {
        "token": token,
        "expires_at": int(time.time()) + 24 * 3600,
        "refresh_in": 12 * 3600,
        "sku": "copilot_for_business_seat",
        "individual": False,
        "chat_enabled": True,
        "blackbird_clientside_indexing": False,
        "code_quote_enabled": False,
        "code_review_enabled": False,
        "codesearch": False,
        "copilotignore_enabled": False,
        "public_suggestions": "disabled",
        "telemetry": "disabled",
        "organization_list": [],
        "endpoints": {
            "api": api_url,
            "proxy": api_url,
            "telemetry": api_url,
            "origin-tracker": api_url,
            "exp": api_url,
        },
    }


def _unauthorized(request: web.Request) -> web.Response | None:
    """GitHub's 401 unless the request carries the test session's token."""
    if request.headers.get("Authorization", "") in (
        f"token {GITHUB_TOKEN}",
        f"Bearer {GITHUB_TOKEN}",
    ):
        return None
    return web.json_response(
        {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
        status=401,
    )


async def _token(request: web.Request) -> web.Response:
    refused = _unauthorized(request)
    if refused is not None:
        return refused
    return web.json_response(copilot_token(own_url(request)))


async def _user_info(request: web.Request) -> web.Response:
    refused = _unauthorized(request)
    if refused is not None:
        return refused
    return web.json_response(
        {
            "login": GITHUB_LOGIN,
            "access_type_sku": "copilot_for_business_seat",
            "copilot_plan": "business",
            "chat_enabled": True,
            "assigned_date": "2025-01-01T00:00:00Z",
            "can_signup_for_limited": False,
            "organization_login_list": [],
            "analytics_tracking_id": "maestro-test",
            "endpoints": {"api": own_url(request)},
        }
    )


async def _user(request: web.Request) -> web.Response:
    refused = _unauthorized(request)
    if refused is not None:
        return refused
    return web.json_response({"login": GITHUB_LOGIN, "id": 4242, "name": "Maestro Test"})
