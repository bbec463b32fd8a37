"""What the running bridge says about itself: that it answers, its key, the editor and the
models it serves, its MCP server, its usage ledger and budgets. Each check a line; a check
that cannot run (the bridge is down) is not reported at all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bridge import SERVICE_NAME
from bridge.doctor.http_probe import Answer, error_message, request
from bridge.doctor.report import Check
from bridge.run.connection import API_KEY_ENV, Connection

START = (
    "open VS Code with the Maestro Bridge extension (its status bar shows the port) or run "
    "`maestro-bridge serve`; pass --url (or set $MAESTRO_BRIDGE_URL) for another address"
)
# Why VS Code's vscode.lm lists no chat models, as users meet it.
NO_MODELS = (
    "in VS Code: sign in to GitHub Copilot (Accounts menu; Copilot Chat installed and "
    "enabled); allow Maestro Bridge to use the language models when VS Code asks (the "
    "consent dialog; Manage Language Model Access in the Accounts menu); in a remote window "
    "(SSH, WSL, dev container, Codespaces) the models are on the local side: install the "
    "extension there too; then run the command Maestro Bridge: Restart"
)
_EDITORS = {
    "maestro-sim": "the headless editor (simulated models)",
    "copilot": "VS Code (GitHub Copilot)",
}
MCP_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "maestro-bridge-doctor", "version": "1"},
    },
}


@dataclass
class BridgeState:
    checks: list[Check] = field(default_factory=list)
    answers: bool = False
    models: list[str] | None = None  # None: not known (down, or the key refused)


def bridge_checks(connection: Connection) -> BridgeState:
    state = BridgeState()
    root = connection.root
    health = request(f"{root}/health", None)
    body = health.body if isinstance(health.body, dict) else {}
    if health.status != 200 or body.get("service") != SERVICE_NAME:
        why = health.error or (
            f"HTTP {health.status}, not a Maestro Bridge" if health.status else ""
        )
        state.checks.append(
            Check("bridge", "fail", f"no Maestro Bridge answers at {root} ({why})", START)
        )
        return state
    state.answers = True
    state.checks.append(
        Check("bridge", "ok", f"Maestro Bridge {body.get('version', '?')} at {root}")
    )
    listed = request(f"{root}/v1/models", connection.api_key)
    state.checks.append(_key_check(listed, connection))
    if listed.status != 200:
        return state
    entries = [e for e in (listed.body or {}).get("data", []) if isinstance(e, dict)]
    state.models = [str(e.get("id")) for e in entries]
    state.checks.append(_models_check(entries))
    state.checks.append(_mcp_check(root, connection.api_key))
    state.checks += _usage_checks(root, connection.api_key)
    return state


def _key_check(listed: Answer, connection: Connection) -> Check:
    fix = (
        f"pass --api-key or set ${API_KEY_ENV} to the bridge's key (VS Code: its integrated "
        "terminals have it, or the setting maestroBridge.apiKey; `serve`: its --api-key, else "
        "`maestro-bridge key --show`)"
    )
    if listed.status == 401:
        if connection.api_key:
            return Check(
                "key", "fail", f"the bridge refused the key from {connection.key_source}", fix
            )
        return Check("key", "fail", "the bridge wants an API key and none was found", fix)
    if listed.status != 200:
        detail = error_message(listed) or listed.error or f"HTTP {listed.status}"
        return Check("key", "fail", f"GET /v1/models failed: {detail}", START)
    if connection.api_key:
        return Check("key", "ok", f"accepted (from {connection.key_source})")
    return Check("key", "ok", "the bridge wants none")


def _models_check(entries: list[dict[str, Any]]) -> Check:
    editor = [e for e in entries if not e.get("alias_for")]
    if not editor:
        return Check(
            "models", "fail", "the editor serves no chat models (vscode.lm lists none)", NO_MODELS
        )
    vendors = sorted({str(e.get("owned_by") or "editor") for e in editor})
    who = ", ".join(_EDITORS.get(vendor, vendor) for vendor in vendors)
    names = ", ".join(str(e["id"]) for e in entries)
    return Check(
        "models", "ok", f"{who}: {len(entries)} ({names}); the default is {editor[0]['id']}"
    )


def _mcp_check(root: str, api_key: str | None) -> Check:
    answer = request(f"{root}/mcp", api_key, MCP_INITIALIZE)
    body = answer.body if isinstance(answer.body, dict) else {}
    if answer.status == 200:
        return Check("mcp", "ok", f"the editor's tools are served at {root}/mcp")
    if answer.status == 404:
        return Check(
            "mcp",
            "info",
            "the editor's tools are off",
            "to offer them to agents: VS Code setting maestroBridge.tools.enable, or "
            "`maestro-bridge serve --tools`; then `configure AGENT --tools`",
        )
    detail = error_message(answer) or str(body.get("error") or answer.error or answer.status)
    return Check(
        "mcp", "fail", f"the MCP server at {root}/mcp answers {detail}", "see the bridge's log"
    )


def _usage_checks(root: str, api_key: str | None) -> list[Check]:
    answer = request(f"{root}/v1/usage?since=today&recent=0", api_key)
    if answer.status == 404:
        return [Check("usage", "info", "the bridge's usage ledger is off: no budgets either")]
    if answer.status != 200 or not isinstance(answer.body, dict):
        detail = error_message(answer) or answer.error or f"HTTP {answer.status}"
        return [
            Check(
                "usage",
                "fail",
                f"the usage ledger cannot be read: {detail}",
                "see the bridge's log",
            )
        ]
    checks = [Check("usage", "ok", "the bridge records usage (`maestro-bridge usage` shows it)")]
    budgets = [b for b in answer.body.get("budgets", []) if isinstance(b, dict)]
    for budget in budgets:
        label = (
            f"budget {budget.get('scope')}{':' + str(budget['name']) if budget.get('name') else ''}"
        )
        used = f"{budget.get('used')} of {budget.get('limit')} tokens this {budget.get('period')}"
        fix = f"wait for {budget.get('resets_at')} or raise the budget"
        if budget.get("state") == "exceeded":
            checks.append(Check(label, "fail", f"spent: {used}; requests are refused", fix))
        elif budget.get("state") == "warning":
            checks.append(Check(label, "warn", f"near its limit: {used}", fix))
        else:
            checks.append(Check(label, "ok", used))
    return checks
