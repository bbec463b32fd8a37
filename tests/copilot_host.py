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
import os
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from fake_capi import MODELS, FakeCapi, github_routes
from fake_capi.forward_proxy import forward_proxy
from vscode_host import VSCodeHost, running_host

GHE_HOST = "ghe.test"  # resolves nowhere: only VS Code's proxy setting reaches it
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


SignIn = Literal["token", "github-enterprise"]
# The production sign-in route: what it needs of VS Code besides the host of every route.
GHE_FIXTURE = "github-enterprise-auth"  # editor-client/test-fixtures/: the session's provider
# VS Code's own GitHub authentication contributes `github-enterprise` too: it must not run.
# Disabled as a person disables it (the workbench's global state: code-server 4.139 has no
# --disable-extension option, "error Unknown option --disable-extension").
GHE_STORAGE_SEED = {
    **STORAGE_SEED,
    "extensionsIdentifiers/disabled": json.dumps([{"id": "vscode.github-authentication"}]),
}
AUTOMATION_ENV = ("IS_SCENARIO_AUTOMATION", "VSCODE_COPILOT_CHAT_TOKEN")


def github_enterprise_settings(capi: FakeCapi, proxy_url: str) -> dict[str, Any]:
    """User settings of the production sign-in: Copilot takes its GitHub session from the
    `github-enterprise` provider, at a GitHub Enterprise host that resolves nowhere, reached
    through VS Code's proxy setting: a forward proxy whose every host is the fake."""
    port = capi.url.rsplit(":", 1)[1]
    return {
        "github.copilot.advanced.authProvider": "github-enterprise",
        "github-enterprise.uri": f"http://{GHE_HOST}:{port}",
        "http.proxy": proxy_url,
        "http.proxySupport": "override",
    }


def bridge_model_ids(host: VSCodeHost, key: str | None = None) -> list[str]:
    request = urllib.request.Request(f"{host.base_url}/models")
    if key:  # a bridge whose tools are on wants its key (maestroBridge.apiKey here)
        request.add_header("Authorization", f"Bearer {key}")
    with urllib.request.urlopen(request, timeout=10) as reply:
        return [str(m["id"]) for m in json.load(reply)["data"]]


def _copilot_models_listed(host: VSCodeHost, wanted: set[str], key: str | None = None) -> bool:
    try:
        return wanted <= set(bridge_model_ids(host, key))
    except OSError:
        return False


@contextlib.contextmanager
def running_copilot_host(
    workdir: Path,
    capi: FakeCapi,
    settings: dict[str, Any] | None = None,
    signin: SignIn = "token",
    extra_env: dict[str, str] | None = None,
) -> Iterator[VSCodeHost]:
    """A VS Code host whose `vscode.lm` serves real Copilot's models from `capi`; returns once
    the bridge lists every chat model of the fake (Copilot is active and fetched /models).

    `signin`: "token", Copilot's scenario-automation hook with a Copilot token given in its
    environment; "github-enterprise", as in production: no automation hook, a GitHub session
    from an authentication provider (the test extension github-enterprise-auth), exchanged by
    Copilot for a Copilot token at the fake (github_routes.py), reached through `http.proxy`
    (fake_capi/forward_proxy.py, which tunnels to the fake only).
    On that route VS Code asks the person, on the first request of another extension, to allow
    it the language models (a modal dialog: VSCodeHost.click_dialog). `extra_env` goes to
    code-server and so to the bridge (a measurement switch such as MAESTRO_BRIDGE_SAVINGS_OFF)."""
    with contextlib.ExitStack() as stack:
        host = stack.enter_context(
            _started_copilot_host(stack, workdir, capi, settings, signin, extra_env)
        )
        wanted = {m.id for m in MODELS}
        host.wait_for(
            lambda: _copilot_models_listed(
                host, wanted, (settings or {}).get("maestroBridge.apiKey")
            ),
            COPILOT_TIMEOUT,
            f"Copilot 0.67 ({signin} sign-in) to activate and serve {sorted(wanted)} through "
            f"vscode.lm (the bridge lists {_safe_ids(host)}; the fake cloud got "
            f"{[(r.method, r.header('host'), r.path) for r in capi.requests]}; the test's "
            f"authentication provider was asked {host.records('auth')})",
        )
        yield host


def _started_copilot_host(
    stack: contextlib.ExitStack,
    workdir: Path,
    capi: FakeCapi,
    settings: dict[str, Any] | None,
    signin: SignIn,
    extra_env: dict[str, str] | None = None,
) -> contextlib.AbstractContextManager[VSCodeHost]:
    """running_host with what the sign-in route needs (its proxy is entered on `stack`)."""
    if signin == "token":
        env = {
            "IS_SCENARIO_AUTOMATION": "1",
            "VSCODE_COPILOT_CHAT_TOKEN": copilot_token(capi.url),
        }
        route: dict[str, Any] = {"seed_storage": STORAGE_SEED}
    else:
        inherited = [name for name in AUTOMATION_ENV if name in os.environ]
        assert not inherited, f"the production sign-in must run without {inherited}"
        env = {"MAESTRO_GHE_ACCESS_TOKEN": github_routes.GITHUB_TOKEN}
        route = {"seed_storage": GHE_STORAGE_SEED, "fixture_extensions": (GHE_FIXTURE,)}
        proxy = stack.enter_context(
            forward_proxy(capi.url, {GHE_HOST, f"api.{GHE_HOST}", "127.0.0.1"})
        )
        settings = {**github_enterprise_settings(capi, proxy.url), **(settings or {})}
    env = {**env, **(extra_env or {})}
    return running_host(workdir, {**SETTINGS, **(settings or {})}, extra_env=env, **route)


def _safe_ids(host: VSCodeHost) -> list[str]:
    try:
        return bridge_model_ids(host)
    except OSError as exc:
        return [f"<{exc}>"]


def copilot_fixtures(
    settings: dict[str, Any] | None = None,
    signin: SignIn = "token",
    extra_env: dict[str, str] | None = None,
) -> tuple[Any, Any]:
    """Module-scoped `capi` (the fake cloud, its record cleared before each test module) and
    `vscode` (the host, Copilot signed in by `signin`: running_copilot_host) fixtures:
    `capi, vscode = copilot_fixtures()` at a test module's top."""

    @pytest.fixture(scope="module", name="capi")
    def module_capi() -> Iterator[FakeCapi]:
        with FakeCapi() as fake:
            yield fake

    @pytest.fixture(scope="module", name="vscode")
    def module_host(
        capi: FakeCapi, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[VSCodeHost]:
        with running_copilot_host(
            tmp_path_factory.mktemp("copilot"), capi, settings, signin, extra_env
        ) as host:
            yield host

    return module_capi, module_host
