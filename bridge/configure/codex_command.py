"""`maestro-bridge configure codex`: point Codex at the running bridge in one step.

It asks the bridge for its models, picks the name Codex should ask for (`codex_choice`),
merges our keys into `$CODEX_HOME/config.toml` (`codex_toml`) with a backup of the old
file, and prints what changed and what is left to do (an alias the bridge lacks, the key
variable to export). With `--tools`, the same file also gets the bridge's MCP server (the
editor's tools) as `[mcp_servers.maestro]`. `--json` prints the same as one JSON object, for
the VS Code command.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from bridge.configure.bridge_models import bridge_root, fetch_models
from bridge.configure.codex_choice import CodexChoice, choose_codex_model
from bridge.configure.codex_toml import API_KEY_ENV, CodexSettings, codex_home, merge
from bridge.configure.config_file import Change, ConfigError, read_config, write_config
from bridge.configure.mcp_server import MCP_SERVER_NAME, TOOLS_OFF_NOTE, McpServer
from bridge.configure.report import camel, change_lines


@dataclass
class Outcome:
    """What `configure codex` did (also its `--json` output)."""

    config: str
    dry_run: bool
    written: bool
    backup: str | None
    codex_model: str
    editor_model: str
    context_window: int | None
    alias: dict[str, Any] | None
    api_key_env: str | None
    mcp_url: str | None  # `--tools`: the bridge's MCP server, added as `maestro`; else None
    changes: list[dict[str, Any]]
    report: list[str] = field(default_factory=list)


def configure_codex(
    model: str | None,
    base_url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    tools: bool = False,
) -> Outcome:
    base_url = base_url.rstrip("/")
    choice = choose_codex_model(fetch_models(base_url, api_key), model)
    env_key = API_KEY_ENV if api_key else None
    mcp_url = McpServer.of_bridge(bridge_root(base_url), api_key).url if tools else None
    settings = CodexSettings(choice.codex_model, base_url, choice.context_window, env_key, mcp_url)
    path = codex_home(environ) / "config.toml"
    try:
        old = read_config(path)
        new, changes = merge(old, settings)
        backup = None
        if changes and not dry_run:
            backup = write_config(path, new, now or datetime.now())
    except ConfigError as exc:
        raise ConfigError(f"Codex's configuration {path}: {exc}") from None
    outcome = Outcome(
        config=str(path),
        dry_run=dry_run,
        written=bool(changes) and not dry_run,
        backup=None if backup is None else str(backup),
        codex_model=choice.codex_model,
        editor_model=choice.editor_model,
        context_window=choice.context_window,
        alias=None if choice.alias is None else camel(asdict(choice.alias)),
        api_key_env=env_key,
        mcp_url=mcp_url,
        changes=[{"key": c.key, "old": c.old, "new": c.new} for c in changes],
    )
    outcome.report = report_lines(outcome, choice, changes)
    return outcome


def report_lines(outcome: Outcome, choice: CodexChoice, changes: list[Change]) -> list[str]:
    lines = change_lines(
        outcome.config,
        changes,
        dry_run=outcome.dry_run,
        backup=outcome.backup,
        unchanged=f"{outcome.config} already points Codex at the bridge: nothing to change.",
    )
    window = f", {choice.context_window} input tokens" if choice.context_window else ""
    lines.append(
        f"Codex asks for {choice.codex_model!r}, answered by the editor model "
        f"{choice.editor_model!r}{window}."
    )
    alias = choice.alias
    if alias is not None and alias.present:
        lines.append(f"The bridge already answers {alias.name!r} with {alias.target!r}.")
    elif alias is not None:
        flag = f"--model-alias {alias.name}={alias.target}"
        lines += [
            f"The bridge must answer {alias.name!r} with {alias.target!r} (Codex offers "
            f"apply_patch only to model names it knows). Restart it with that alias:",
            f"  maestro-bridge serve {flag}",
            f'  VS Code: setting maestroBridge.modelAliases {{"{alias.name}": "{alias.target}"}}'
            ' (the command "Maestro Bridge: Configure Codex" sets it for you)',
        ]
    if outcome.mcp_url:
        lines.append(
            f"Codex offers the editor's tools from the MCP server {MCP_SERVER_NAME!r} at "
            f"{outcome.mcp_url} (`codex mcp list` shows it). " + TOOLS_OFF_NOTE
        )
    if outcome.api_key_env:
        lines.append(
            f"Codex sends the API key from ${outcome.api_key_env}: export it where you run codex."
        )
    return lines
