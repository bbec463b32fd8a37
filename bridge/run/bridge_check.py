"""Is a Maestro Bridge answering at a URL? `GET /health` says so (its `service`), without a
key; then its models (`GET /v1/models`, with the key) through configure's client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from bridge import SERVICE_NAME

HEALTH_TIMEOUT = 3.0


def health(root: str, timeout: float = HEALTH_TIMEOUT) -> dict[str, Any] | None:
    """The `/health` answer of a Maestro Bridge at `root`; None when nothing answers there, or
    something that is not a Maestro Bridge."""
    request = urllib.request.Request(f"{root}/health", headers={"Accept": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    try:
        with opener.open(request, timeout=timeout) as response:
            data = json.loads(response.read())
    except (OSError, ValueError, urllib.error.HTTPError):
        return None
    if isinstance(data, dict) and data.get("service") == SERVICE_NAME:
        return data
    return None
