"""`maestro-bridge configure opencode` and `configure qwen`: point OpenCode or Qwen Code at the
running bridge in one step.

Both speak Chat Completions to an OpenAI-compatible server, so both get the same things: every
model the bridge lists (their model pickers offer them), the chosen one as their model, the
bridge's address and key; with `--tools`, the bridge's MCP server. Each in its own file
(`opencode_config`, `qwen_settings`), merged with a backup of the old file. The model: `--model`
(it must be listed), else the editor's first model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bridge.configure import opencode_config, qwen_settings
from bridge.configure.bridge_models import (
    ChoiceError,
    ListedModel,
    bridge_root,
    fetch_models,
    listed_model,
)
from bridge.configure.config_file import Change, merged_config, write_changes
from bridge.configure.mcp_server import MCP_SERVER_NAME, TOOLS_OFF_NOTE, McpServer
from bridge.configure.report import Secret, change_lines

PLACEHOLDER_KEY = "maestro-bridge-no-key"


@dataclass
class Outcome:
    """What `configure opencode` / `configure qwen` did (also its `--json` output)."""

    config: str
    dry_run: bool
    written: bool
    backup: str | None
    base_url: str
    model: str
    models: list[str]
    placeholder_key: bool
    mcp_url: str | None
    changes: list[dict[str, Any]]
    report: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Agent:
    label: str  # "OpenCode"
    path: Callable[[Mapping[str, str]], Path]
    merge: Callable[..., tuple[str, list[Change]]]
    secrets: tuple[Secret, ...]
    model_shown: Callable[[str], str]  # how the agent names the model in its file
    mcp_hint: str


OPENCODE = _Agent(
    "OpenCode",
    opencode_config.opencode_config_file,
    opencode_config.merge,
    (
        Secret(opencode_config.API_KEY_PATH, PLACEHOLDER_KEY),
        Secret(opencode_config.MCP_AUTHORIZATION_PATH, ""),
    ),
    lambda model: f"{opencode_config.PROVIDER_ID}/{model}",
    "`opencode mcp list` shows it",
)
QWEN = _Agent(
    "Qwen Code",
    lambda environ: qwen_settings.qwen_dir(environ) / "settings.json",
    qwen_settings.merge,
    (
        Secret(f"env.{qwen_settings.KEY_ENV}", PLACEHOLDER_KEY),
        Secret(f"mcpServers.{MCP_SERVER_NAME}.headers.Authorization", ""),
    ),
    lambda model: model,
    "`qwen mcp list` shows it",
)


def configure_opencode(
    model: str | None,
    url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    tools: bool = False,
) -> Outcome:
    return _configure(OPENCODE, model, url, api_key, dry_run, environ, now, tools)


def configure_qwen(
    model: str | None,
    url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    tools: bool = False,
) -> Outcome:
    return _configure(QWEN, model, url, api_key, dry_run, environ, now, tools)


def _configure(
    agent: _Agent,
    model: str | None,
    url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None,
    tools: bool,
) -> Outcome:
    root = bridge_root(url)
    listed = fetch_models(f"{root}/v1", api_key)
    chosen = _choose(listed, model)
    names = [entry.id for entry in listed]
    mcp = McpServer.of_bridge(root, api_key) if tools else None
    key = api_key or PLACEHOLDER_KEY
    path = agent.path(environ)
    label = f"{agent.label}'s configuration"
    text, changes = merged_config(
        path, label, lambda old: agent.merge(old, f"{root}/v1", key, chosen, names, mcp)
    )
    backup = write_changes(path, text, changes, dry_run, now or datetime.now(), label)
    outcome = Outcome(
        config=str(path),
        dry_run=dry_run,
        written=bool(changes) and not dry_run,
        backup=None if backup is None else str(backup),
        base_url=f"{root}/v1",
        model=chosen,
        models=names,
        placeholder_key=api_key is None,
        mcp_url=None if mcp is None else mcp.url,
        changes=_hidden(agent, changes),
    )
    outcome.report = _report(agent, outcome, changes)
    return outcome


def _choose(listed: list[ListedModel], model: str | None) -> str:
    if model is not None:
        return listed_model(listed, model, "--model")
    editor = [entry.id for entry in listed if entry.alias_for is None]
    if not editor:
        raise ChoiceError("The bridge offers no models: the editor has none to serve.")
    return editor[0]


def _hidden(agent: _Agent, changes: list[Change]) -> list[dict[str, Any]]:
    rows = []
    for change in changes:
        secret = next((s for s in agent.secrets if s.key == change.key), None)
        old = secret.hide(change, change.old) if secret else change.old
        new = secret.hide(change, change.new) if secret else change.new
        rows.append({"key": change.key, "old": old, "new": new})
    return rows


def _report(agent: _Agent, outcome: Outcome, changes: list[Change]) -> list[str]:
    def show(change: Change, value: Any) -> str:
        secret = next((s for s in agent.secrets if s.key == change.key), None)
        return secret.show(change, value) if secret else Secret("", "").show(change, value)

    lines = change_lines(
        outcome.config,
        changes,
        dry_run=outcome.dry_run,
        backup=outcome.backup,
        unchanged=f"{outcome.config} already points {agent.label} at the bridge: "
        "nothing to change.",
        show=show,
    )
    lines.append(
        f"{agent.label} asks for {agent.model_shown(outcome.model)!r}; its model picker lists "
        f"the bridge's {len(outcome.models)} models."
    )
    if outcome.mcp_url:
        lines.append(
            f"{agent.label} offers the editor's tools from the MCP server {MCP_SERVER_NAME!r} "
            f"at {outcome.mcp_url} ({agent.mcp_hint}). " + TOOLS_OFF_NOTE
        )
    if outcome.placeholder_key:
        lines.append(f"The bridge wants no API key: the key written is {PLACEHOLDER_KEY!r}.")
    else:
        lines.append("The bridge's API key is written with it.")
    return lines
