"""The real GitHub Copilot provider in the VS Code host of the tests: code-server's built-in
Copilot Chat 0.67, enabled and signed in through its own scenario-automation hook, talking to
the fake of Copilot's cloud in tests/fake_capi/ instead of GitHub.

    client -> bridge -> lsp -> Maestro Bridge extension -> vscode.lm -> Copilot 0.67 -> fake CAPI

What is real here: VS Code's extension host and `vscode.lm`, Copilot's request path (its
prompt, defaults, tool checks, endpoint choice per model, SSE parsing, error mapping) and the
bridge. What is faked: only the cloud. Copilot is switched on by two means it offers for its
own automation (IS_SCENARIO_AUTOMATION=1 and VSCODE_COPILOT_CHAT_TOKEN: a token whose `api`
endpoint is the fake's URL), and VS Code's first-start migration that disables the built-in
chat extension is marked as done in the workbench's storage (drive.js). Both depend on VS Code
internals of the pinned code-server (scripts/setup-vscode-e2e), so a host whose Copilot does
not come up fails loudly, naming what it waited for: it never skips.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_capi import MODELS, FakeCapi
from vscode_host import VSCodeHost, running_host

COPILOT_TIMEOUT = 120.0  # Copilot's activation and its first /models, on a busy 2-core box
# VS Code disables the built-in Copilot Chat on a first start whose chat setup is not done,
# unless this one-time migration has already run.
STORAGE_SEED = {"builtinChatExtensionEnablementMigration": "true"}
SETTINGS = {
    "chat.disableAIFeatures": False,
    # Nothing of Copilot's may reach for the network beyond the fake.
    "github.copilot.chat.githubMcpServer.enabled": False,
    "chat.mcp.discovery.enabled": False,
}


def copilot_token(api_url: str) -> str:
    """VSCODE_COPILOT_CHAT_TOKEN: base64 of the token Copilot would get from GitHub, with
    every endpoint of Copilot's cloud at the fake."""
    token = {
        "token": "fake-capi-token",
        "expires_at": int(time.time()) + 24 * 3600,
        "refresh_in": 12 * 3600,
        "sku": "copilot_for_business_seat",
        "copilot_plan": "business",
        "individual": False,
        "chat_enabled": True,
        "endpoints": {
            "api": api_url,
            "proxy": api_url,
            "telemetry": api_url,
            "origin-tracker": api_url,
        },
    }
    return base64.b64encode(json.dumps(token).encode()).decode()


def bridge_model_ids(host: VSCodeHost) -> list[str]:
    with urllib.request.urlopen(f"{host.base_url}/models", timeout=10) as reply:
        return [str(m["id"]) for m in json.load(reply)["data"]]


def _copilot_models_listed(host: VSCodeHost, wanted: set[str]) -> bool:
    try:
        return wanted <= set(bridge_model_ids(host))
    except OSError:
        return False


@contextlib.contextmanager
def running_copilot_host(
    workdir: Path, capi: FakeCapi, settings: dict[str, Any] | None = None
) -> Iterator[VSCodeHost]:
    """A VS Code host whose `vscode.lm` serves real Copilot's models from `capi`; returns once
    the bridge lists every chat model of the fake (Copilot is active and fetched /models)."""
    env = {"IS_SCENARIO_AUTOMATION": "1", "VSCODE_COPILOT_CHAT_TOKEN": copilot_token(capi.url)}
    with running_host(
        workdir, {**SETTINGS, **(settings or {})}, extra_env=env, seed_storage=STORAGE_SEED
    ) as host:
        wanted = {m.id for m in MODELS}
        host.wait_for(
            lambda: _copilot_models_listed(host, wanted),
            COPILOT_TIMEOUT,
            f"Copilot 0.67 to activate and serve {sorted(wanted)} through vscode.lm (the bridge "
            f"lists {_safe_ids(host)}; the fake cloud got {[r.path for r in capi.requests]})",
        )
        yield host


def _safe_ids(host: VSCodeHost) -> list[str]:
    try:
        return bridge_model_ids(host)
    except OSError as exc:
        return [f"<{exc}>"]


def copilot_fixtures(settings: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """Module-scoped `capi` (the fake cloud, its record cleared before each test module) and
    `vscode` (the host) fixtures: `capi, vscode = copilot_fixtures()` at a test module's top."""

    @pytest.fixture(scope="module", name="capi")
    def module_capi() -> Iterator[FakeCapi]:
        with FakeCapi() as fake:
            yield fake

    @pytest.fixture(scope="module", name="vscode")
    def module_host(
        capi: FakeCapi, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[VSCodeHost]:
        with running_copilot_host(tmp_path_factory.mktemp("copilot"), capi, settings) as host:
            yield host

    return module_capi, module_host
