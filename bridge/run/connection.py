"""Where the bridge is and which key it wants, as `run` and `doctor` look them up.

The URL: `--url`, else $MAESTRO_BRIDGE_URL (VS Code sets it in its integrated terminals), else
the default port on this machine. The key: `--api-key`, else $MAESTRO_BRIDGE_API_KEY, else the
file `api-key` that `serve` writes into the state folder (beside the usage database), when it
is there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bridge.access.key_file import KeyFileError, key_file_path, read_key

URL_ENV = "MAESTRO_BRIDGE_URL"
API_KEY_ENV = "MAESTRO_BRIDGE_API_KEY"
DEFAULT_ROOT = "http://127.0.0.1:23335"


@dataclass(frozen=True)
class Connection:
    root: str  # the bridge's root URL, without /v1
    api_key: str | None
    key_source: str  # "--api-key", "$MAESTRO_BRIDGE_API_KEY", the key file's path, or "none"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (with /v1)."""
        return f"{self.root}/v1"


def key_file(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """`<state folder>/api-key`: where `serve` keeps the key it made (bridge/access)."""
    return key_file_path(environ, platform)


def bridge_root(url: str) -> str:
    """`url` without a trailing slash, `/v1` or `/v1beta`."""
    root = url.rstrip("/")
    for suffix in ("/v1beta", "/v1"):
        if root.endswith(suffix):
            return root[: -len(suffix)]
    return root


def find_connection(
    url: str | None, api_key: str | None, environ: Mapping[str, str] | None = None
) -> Connection:
    environ = os.environ if environ is None else environ
    root = bridge_root(url or environ.get(URL_ENV) or DEFAULT_ROOT)
    if api_key:
        return Connection(root, api_key, "--api-key")
    if environ.get(API_KEY_ENV):
        return Connection(root, environ[API_KEY_ENV], f"${API_KEY_ENV}")
    path = key_file(environ)
    try:
        text = read_key(path) or ""
    except KeyFileError:
        text = ""
    if text:
        return Connection(root, text, str(path))
    return Connection(root, None, "none")
