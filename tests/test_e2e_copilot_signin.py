"""The real GitHub Copilot provider signed in as in production, then a request through it:

    client -> bridge -> lsp -> extension -> vscode.lm -> Copilot 0.67 -> fake CAPI

with no scenario-automation hook and no Copilot token in the environment (tests/copilot_host.py,
`signin="github-enterprise"`). What is real: VS Code's authentication API and its consent to
language-model access (the modal dialog a person answers, clicked here by the browser driver,
tests/vscode_e2e/drive.js), Copilot's sign-in (its session lookup, the exchange of the GitHub
token for a Copilot token, the endpoints it takes from that token), its request path, VS Code's
proxy support, and the bridge. What is faked: the GitHub session (a test authentication
provider for `github-enterprise`, editor-client/test-fixtures/github-enterprise-auth, in place
of VS Code's disabled GitHub authentication) and the cloud: the GitHub Enterprise API and CAPI
(tests/fake_capi/, github_routes.py), reached through `http.proxy` (a forward proxy whose every
host is the fake, fake_capi/forward_proxy.py). Fails when Copilot does not
come up, and under $CI when code-server is missing (skipped elsewhere, as every VS Code test is).
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from copilot_host import AUTOMATION_ENV, GHE_HOST, copilot_fixtures
from dialect_calls import Dialect, Outcome, body_for, call
from fake_capi import FakeCapi, Recorded, github_routes
from vscode_host import VSCodeHost

pytestmark = pytest.mark.timeout(600)

capi, vscode = copilot_fixtures(signin="github-enterprise")

MODEL = "gpt-4.1"
CONSENT_TIMEOUT = 90.0  # the dialog shows once Copilot's model is resolved for the request


def ask(host: VSCodeHost, dialect: Dialect, text: str) -> Outcome:
    root = host.base_url.removesuffix("/v1")
    return call(root, dialect, body_for(dialect, MODEL, text), stream=True, model=MODEL)


def upstream(capi: FakeCapi, marker: str) -> Recorded:
    """The one chat request the fake cloud got whose body carries `marker`."""
    found = [r for r in capi.requests if r.body is not None and marker in json.dumps(r.body)]
    assert len(found) == 1, [r.path for r in capi.requests]
    return found[0]


def test_copilot_signed_in_through_github_enterprise(vscode: VSCodeHost, capi: FakeCapi) -> None:
    """Copilot took the session of the `github-enterprise` provider and exchanged its token at
    the GitHub Enterprise API, through VS Code's proxy, with no automation hook."""
    for name in AUTOMATION_ENV:
        assert name not in vscode.env, name
    asked = vscode.records("auth")
    assert any(e["call"] == "getSessions" and e["sessions"] == 1 for e in asked), asked
    exchanges = capi.requests_to(github_routes.TOKEN_PATH)
    assert exchanges, [(r.header("host"), r.path) for r in capi.requests]
    exchange = exchanges[0]
    assert exchange.header("authorization") == f"token {github_routes.GITHUB_TOKEN}"
    port = capi.url.rsplit(":", 1)[1]
    assert exchange.header("host") == f"api.{GHE_HOST}:{port}", exchange.headers
    listed = capi.requests_to("/models")
    assert listed, [r.path for r in capi.requests]
    assert listed[-1].header("authorization") == f"Bearer {github_routes.COPILOT_TOKEN}"
    # Copilot's own fetcher (undici) went through the proxy's tunnels: it never fell back.
    log = copilot_log(vscode)
    assert "Using the Node fetch fetcher." in log, log[-3000:]
    assert "using node-http from now on" not in log, log[-3000:]


def copilot_log(host: VSCodeHost) -> str:
    """GitHub Copilot Chat's output log in the first window's extension host."""
    logs = sorted(host.root.glob("user-data/logs/*/exthost1/GitHub.copilot-chat/*.log"))
    assert logs, f"no Copilot log under {host.root}"
    return "".join(path.read_text(encoding="utf-8", errors="replace") for path in logs)


def test_first_request_asks_consent_then_reaches_the_cloud(
    vscode: VSCodeHost, capi: FakeCapi
) -> None:
    """The first request of the bridge's extension waits on VS Code's consent dialog; once a
    person allows it, the request reaches the cloud and its answer comes back."""
    marker = uuid.uuid4().hex[:10]
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(ask, vscode, "chat", f"Hello {marker}")
        said = vscode.click_dialog("Allow", timeout=CONSENT_TIMEOUT)
        outcome = pending.result(timeout=120)
    assert "wants to access the language models provided by" in said, said
    assert "Maestro Bridge" in said, said
    assert outcome.status == 200, f"{outcome}\n{vscode.diagnostics()}"
    assert outcome.text == f"You said: Hello {marker}", outcome
    assert outcome.finish == "stop", outcome
    sent = upstream(capi, marker)
    assert sent.path == "/chat/completions" and sent.body["model"] == MODEL
    assert sent.header("authorization") == f"Bearer {github_routes.COPILOT_TOKEN}"
    assert (sent.header("x-onbehalf-extension-id") or "").startswith("maestro.maestro-bridge/")


@pytest.mark.parametrize("dialect", ["responses", "messages", "gemini"])
def test_once_allowed_every_dialect_goes_through(
    vscode: VSCodeHost, capi: FakeCapi, dialect: Dialect
) -> None:
    """Consent is asked once: later requests go through without a dialog."""
    marker = uuid.uuid4().hex[:10]
    outcome = ask(vscode, dialect, f"Again {marker}")
    assert outcome.status == 200, f"{outcome}\n{vscode.diagnostics()}"
    assert outcome.text == f"You said: Again {marker}", outcome
    assert upstream(capi, marker).header("authorization") == f"Bearer {github_routes.COPILOT_TOKEN}"
