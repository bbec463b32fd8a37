"""`GET /usage`: the live usage page, one self-contained HTML file (inline CSS and script, no
request to anywhere but the bridge's own `/v1/usage`).

The HTML carries no data and no key, so it is served without the key (a browser opening a URL
cannot send a header) but behind the Host check (bridge/http/security.py). Its script reads
the key from the URL fragment (`/usage#key=...`, which browsers never send to the server) and
sends it as `Authorization: Bearer`. The Content-Security-Policy allows exactly the inline
style and script of this file (by their hashes) and requests to the bridge itself.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache
from importlib import resources

from aiohttp import web

from bridge.http.security import USAGE_PAGE

_INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


@cache
def page() -> tuple[bytes, str]:
    """The page's bytes and its Content-Security-Policy (read once)."""
    html = (resources.files("bridge.usage") / "page" / "usage.html").read_text(encoding="utf-8")
    hashes: dict[str, list[str]] = {"script": [], "style": []}
    for tag, body in _INLINE.findall(html):
        hashes[tag].append(_hash(body))
    policy = "; ".join(
        (
            "default-src 'none'",
            f"script-src {' '.join(hashes['script'])}",
            f"style-src {' '.join(hashes['style'])}",
            "connect-src 'self'",
            "img-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        )
    )
    return html.encode("utf-8"), policy


async def usage_page(request: web.Request) -> web.Response:
    body, policy = page()
    return web.Response(
        body=body,
        content_type="text/html",
        charset="utf-8",
        headers={
            "Content-Security-Policy": policy,
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
        },
    )


def mount(app: web.Application) -> None:
    app.router.add_get(USAGE_PAGE, usage_page)
