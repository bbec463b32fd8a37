"""Who may talk to the endpoint: bind address, Host and Origin checks, CORS, the API key.

The endpoint spends the user's model quota, and any web page the user opens can send requests
to 127.0.0.1. So by default only loopback is bound, a request whose Host header is not a
loopback name is refused (a DNS-rebinding page sends its own domain as Host), and a request a
browser marks as coming from a web page (`Origin`, `Sec-Fetch-Site`) is refused unless that
origin was allowed by the user. No response ever carries `Access-Control-Allow-Origin: *`.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from bridge.core.errors import ApiError
from bridge.http.bind_policy import is_loopback_host
from bridge.settings import BridgeSettings

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# The usage page (bridge/usage/page_route.py) is a document without data: a browser opening a
# URL cannot send a key header, so its HTML needs none; its script reads /v1/usage with the key.
USAGE_PAGE = "/usage"
UNAUTHENTICATED_PATHS = frozenset({"/health", USAGE_PAGE})
# What the usage page's script reads from the bridge's own origin (Sec-Fetch-Site: same-origin):
# no other site shares that origin, as the Host check keeps rebinding names out.
OWN_PAGE_READS = frozenset({"/v1/usage"})
CORS_METHODS = "GET, POST, OPTIONS"
CORS_MAX_AGE = "600"


def _host_name(header: str) -> str:
    """The name part of a Host header (`[::1]:8080` -> `::1`, `localhost:80` -> `localhost`)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    if header.count(":") == 1:
        return header.partition(":")[0]
    return header


class AccessPolicy:
    """The decisions, kept apart from aiohttp so they read as plain rules."""

    def __init__(self, settings: BridgeSettings) -> None:
        extra = {name.strip().strip("[]").lower() for name in settings.allowedHosts}
        self.any_host = "*" in extra
        bound = settings.host.strip().strip("[]").lower()
        wildcard_bind = bound in ("", "0.0.0.0", "::")
        self.hosts = extra | ({bound} if not wildcard_bind else set())
        self.origins = frozenset(origin.rstrip("/") for origin in settings.allowedOrigins)
        self.api_key = settings.apiKey.encode() if settings.apiKey else None

    def host_allowed(self, header: str | None) -> bool:
        if self.any_host:
            return True
        if not header:
            return False
        name = _host_name(header)
        return name in self.hosts or is_loopback_host(name)

    def origin_allowed(
        self,
        origin: str | None,
        fetch_site: str | None,
        path: str = "",
        own_origin: str = "",
    ) -> bool:
        """A browser request from a web page carries Origin or a Sec-Fetch-Site other than
        `none` (`none` = the user typed the URL); only allowlisted origins may call, besides
        the usage page: its HTML from any page (VS Code frames it in a webview, a cross-site
        frame; it carries no data) and its reads of /v1/usage from the bridge's own origin."""
        if path == USAGE_PAGE:
            return True
        from_page = origin is not None or (fetch_site is not None and fetch_site != "none")
        if not from_page:
            return True
        if (
            path in OWN_PAGE_READS
            and fetch_site == "same-origin"
            and (origin is None or origin.rstrip("/").lower() == own_origin)
        ):
            return True
        return origin is not None and origin.rstrip("/") in self.origins

    def key_accepted(self, request: web.Request) -> bool:
        if self.api_key is None or request.path in UNAUTHENTICATED_PATHS:
            return True
        given = _given_key(request)
        # aiohttp hands non-UTF-8 header bytes over as surrogate escapes: turn them back into
        # the bytes that were sent (a wrong key), rather than fail to encode them.
        try:
            sent = given.strip().encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return False
        # Constant time: the comparison must not reveal how much of a guess was right.
        return hmac.compare_digest(sent, self.api_key)


# Google's clients send the key as `x-goog-api-key`, or as `?key=` in the URL (only taken under
# Google's own paths: a key in a URL ends up in logs and histories, the other dialects never
# needed it).
QUERY_KEY_PREFIXES = ("/v1beta/",)


def _given_key(request: web.Request) -> str:
    """The key the request carries: `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`,
    or `?key=` on Google's paths ("" when none)."""
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:]
    for header in ("x-api-key", "x-goog-api-key"):
        if header in request.headers:
            return request.headers[header]
    if request.path.startswith(QUERY_KEY_PREFIXES):
        return request.query.get("key", "")
    return ""


def _forbidden(message: str, code: str) -> ApiError:
    return ApiError(403, message, type="permission_error", code=code)


def _preflight(request: web.Request) -> web.Response:
    headers = {
        "Access-Control-Allow-Methods": CORS_METHODS,
        "Access-Control-Max-Age": CORS_MAX_AGE,
    }
    asked = request.headers.get("Access-Control-Request-Headers")
    if asked:
        headers["Access-Control-Allow-Headers"] = asked
    return web.Response(status=204, headers=headers)


def access_middleware(policy: AccessPolicy) -> Any:
    @web.middleware
    async def check_access(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not policy.host_allowed(request.headers.get("Host")):
            raise _forbidden(
                "Blocking a request whose Host header is not a local name (DNS-rebinding "
                "defence). Use 127.0.0.1 or localhost, or add the name to allowedHosts "
                "(--allowed-host).",
                "host_not_allowed",
            )
        origin = request.headers.get("Origin")
        own_origin = f"{request.scheme}://{request.host}".lower()
        fetch_site = request.headers.get("Sec-Fetch-Site")
        if not policy.origin_allowed(origin, fetch_site, request.path, own_origin):
            raise _forbidden(
                "Blocking a request from a web page: browsers may not use this endpoint unless "
                "their origin is in allowedOrigins (--allowed-origin).",
                "origin_not_allowed",
            )
        if request.method == "OPTIONS" and origin is not None:
            return _preflight(request)  # CORS preflights carry no key by design
        if not policy.key_accepted(request):
            raise ApiError(
                401,
                "Missing or wrong API key: send `Authorization: Bearer <key>` (or `x-api-key`, "
                "or for the Gemini API `x-goog-api-key`) with the key set in the editor.",
                type="authentication_error",
                code="invalid_api_key",
            )
        return await handler(request)

    return check_access


async def _cors_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Allowlisted origins get their own origin echoed (never `*`), on streams too."""
    origin = request.headers.get("Origin")
    response.headers.pop("Access-Control-Allow-Origin", None)
    if origin is not None and origin.rstrip("/") in request.app[POLICY].origins:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Vary"] = "Origin"


POLICY: web.AppKey[AccessPolicy] = web.AppKey("access_policy", AccessPolicy)


def install(app: web.Application, settings: BridgeSettings) -> None:
    """Add the checks to an app; call after the error middleware so refusals are envelopes."""
    policy = AccessPolicy(settings)
    app[POLICY] = policy
    app.middlewares.append(access_middleware(policy))
    app.on_response_prepare.append(_cors_headers)
