"""Asks the running bridge which models it serves: `GET {base_url}/models`.

The standard library's HTTP client is enough for one GET, and keeps `configure` free of the
server's imports. Every failure becomes a `BridgeUnavailable` whose message says what to do.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

DEFAULT_BASE_URL = "http://127.0.0.1:23335/v1"
TIMEOUT_SECONDS = 10.0
_START_HINT = (
    "Start the bridge first (`maestro-bridge serve`, or VS Code with the Maestro Bridge "
    "extension), or pass --base-url with its address."
)


def bridge_root(url: str) -> str:
    """The bridge's root URL, what Claude Code and Gemini CLI want as their base URL (they add
    `/v1/...` or `/v1beta/...` themselves): `url` without a trailing `/v1` or `/v1beta`."""
    root = url.rstrip("/")
    for suffix in ("/v1beta", "/v1"):
        if root.endswith(suffix):
            return root[: -len(suffix)]
    return root


class BridgeUnavailable(Exception):
    """The bridge did not answer, or not as a bridge does; the message is for the user."""


class ChoiceError(Exception):
    """No listed model fits (unknown `--model`, no models at all); the message is for the user."""


@dataclass(frozen=True)
class ListedModel:
    """One entry of GET /v1/models: an editor model, or an alias of one."""

    id: str
    alias_for: str | None = None
    max_input_tokens: int | None = None


def fetch_models(
    base_url: str, api_key: str | None, timeout: float = TIMEOUT_SECONDS
) -> list[ListedModel]:
    url = f"{base_url.rstrip('/')}/models"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    # No proxy: the bridge is on this machine (or named directly), never behind $HTTP_PROXY.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as exc:
        raise BridgeUnavailable(_http_error_message(url, exc, api_key)) from None
    except urllib.error.URLError as exc:
        reason = exc.reason.strerror if isinstance(exc.reason, OSError) else exc.reason
        raise BridgeUnavailable(
            f"No Maestro Bridge answers at {base_url} ({reason or exc}). {_START_HINT}"
        ) from None
    except TimeoutError:
        raise BridgeUnavailable(
            f"No answer from {base_url} within {timeout:.0f} s. {_START_HINT}"
        ) from None
    except OSError as exc:  # a reset or a broken connection mid-answer
        raise BridgeUnavailable(
            f"No Maestro Bridge answers at {base_url} ({exc}). {_START_HINT}"
        ) from None
    return parse_models(url, body)


def parse_models(url: str, body: bytes) -> list[ListedModel]:
    """The entries of a GET /v1/models answer; BridgeUnavailable when it is not one."""
    try:
        data: Any = json.loads(body)
        entries = data["data"]
        models = [_entry(entry) for entry in entries]
    except (ValueError, KeyError, TypeError):
        raise BridgeUnavailable(
            f"GET {url} did not answer with a model list: is this a Maestro Bridge? "
            "Pass --base-url with the bridge's address (it ends in /v1)."
        ) from None
    return models


def _entry(entry: Any) -> ListedModel:
    model_id = entry["id"]
    alias_for = entry.get("alias_for")
    tokens = entry.get("max_input_tokens")
    if not isinstance(model_id, str) or not isinstance(alias_for, (str, type(None))):
        raise TypeError("bad model entry")
    usable = isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0
    return ListedModel(model_id, alias_for, tokens if usable else None)


def _http_error_message(url: str, exc: urllib.error.HTTPError, api_key: str | None) -> str:
    if exc.code == 401:
        if api_key:
            return f"The bridge refused the API key (GET {url}: 401). Check --api-key."
        return (
            f"The bridge wants an API key (GET {url}: 401): pass --api-key or set "
            "$MAESTRO_BRIDGE_API_KEY."
        )
    detail = ""
    with contextlib.suppress(ValueError, KeyError, TypeError, OSError):
        detail = str(json.loads(exc.read())["error"]["message"])
    return f"GET {url} failed with HTTP {exc.code}{f': {detail}' if detail else ''}."


def listed_model(models: list[ListedModel], requested: str, option: str) -> str:
    """`requested` when the bridge lists it (an editor id or an alias); else a ChoiceError
    naming `option` and every listed model."""
    if any(model.id == requested for model in models):
        return requested
    names = ", ".join(model.id for model in models) or "none"
    raise ChoiceError(f"{option}: the bridge offers no model {requested!r}. Models: {names}.")
