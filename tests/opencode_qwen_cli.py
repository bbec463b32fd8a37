"""The real OpenCode and Qwen Code, as the `run` and `configure` tests start them: where their
binaries are, and what keeps them offline in an isolated HOME.

Measured with strace (`-e trace=connect`):

* OpenCode 1.18.33 asks registry.npmjs.org for its plugin package on a first start (into npm's
  cache); `npm_config_offline=true` makes that a cache-only look-up. Models.dev and the update
  check are switched off with OPENCODE_DISABLE_MODELS_FETCH and OPENCODE_DISABLE_AUTOUPDATE.
* Qwen Code 0.24.4 sends usage statistics and checks for updates unless its settings.json says
  `privacy.usageStatisticsEnabled: false` and `general.enableAutoUpdate: false`; it rewrites a
  settings file without `"$version": 4` (its own migration), so the tests' files carry it.

The binaries: $MAESTRO_OPENCODE_BIN / $MAESTRO_QWEN_BIN, else where scripts/test installs them,
else on PATH; without one the test is skipped (failed under $CI).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runs import ClientBinary
from conftest import REPO_ROOT

OPENCODE_VERSION = "1.18.33"
QWEN_VERSION = "0.24.4"

OPENCODE = ClientBinary(
    "MAESTRO_OPENCODE_BIN",
    REPO_ROOT / ".cache" / "opencode" / "node_modules" / ".bin" / "opencode",
    "opencode",
    "OpenCode",
    f"npm install --prefix .cache/opencode opencode-ai@{OPENCODE_VERSION}",
)
QWEN = ClientBinary(
    "MAESTRO_QWEN_BIN",
    REPO_ROOT / ".cache" / "qwen-code" / "node_modules" / ".bin" / "qwen",
    "qwen",
    "Qwen Code",
    f"npm install --prefix .cache/qwen-code @qwen-code/qwen-code@{QWEN_VERSION}",
)

OPENCODE_OFFLINE_ENV = {
    "npm_config_offline": "true",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "NO_COLOR": "1",
}
# Variables of the developer's own setup that would send them elsewhere.
OPENCODE_CLEARED = ("OPENCODE_", "OPENAI_", "ANTHROPIC_", "XDG_", "HTTP_PROXY", "HTTPS_PROXY")
QWEN_CLEARED = ("QWEN_", "OPENAI_", "DASHSCOPE_", "GEMINI_", "GOOGLE_", "HTTP_PROXY", "HTTPS_PROXY")
QWEN_OFFLINE_SETTINGS: dict[str, Any] = {
    "$version": 4,
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
}


def opencode_home_env(home: Path) -> dict[str, str]:
    """HOME and the XDG folders OpenCode keeps its configuration, data and cache in."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
    }


def write_qwen_settings(home: Path, extra: dict[str, Any] | None = None) -> Path:
    """~/.qwen/settings.json: the offline settings, and `extra` over them."""
    path = home / ".qwen" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**QWEN_OFFLINE_SETTINGS, **(extra or {})}, indent=2) + "\n")
    return path
