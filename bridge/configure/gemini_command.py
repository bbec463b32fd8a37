"""`maestro-bridge configure gemini`: point Gemini CLI at the running bridge in one step.

It asks the bridge for its models, picks the one Gemini CLI should ask for (`gemini_choice`),
merges the bridge's address, key and that model into `~/.gemini/.env` (`gemini_env`) and the
API-key sign-in into `~/.gemini/settings.json` (`gemini_settings`), each with a backup of the
old file, and prints what changed (the key redacted). Both files are read and merged before
either is written: when one cannot be edited, neither changes. With `--tools`, settings.json
also gets the bridge's MCP server (the editor's tools) as `mcpServers.maestro`. `--json`
prints the same as one JSON object, for the VS Code command.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bridge.configure.bridge_models import bridge_root, fetch_models, listed_model
from bridge.configure.config_file import Change, merged_config, write_changes
from bridge.configure.gemini_choice import GeminiChoice, choose_gemini_model
from bridge.configure.gemini_env import merge_env
from bridge.configure.gemini_settings import gemini_dir, merge_settings
from bridge.configure.mcp_server import (
    KEY_ENV_NOTE,
    MCP_SERVER_NAME,
    TOOLS_OFF_NOTE,
    McpServer,
)
from bridge.configure.report import Secret, change_lines

BASE_URL_ENV = "GOOGLE_GEMINI_BASE_URL"
API_KEY_ENV = "GEMINI_API_KEY"
MODEL_ENV = "GEMINI_MODEL"
# Written when the bridge wants no key: Gemini CLI will not start without one, and a bridge
# without a key accepts any.
PLACEHOLDER_KEY = "maestro-bridge-no-key"
ENV_LABEL = "Gemini CLI's .env"
SETTINGS_LABEL = "Gemini CLI's settings"
SECRET = Secret(API_KEY_ENV, PLACEHOLDER_KEY)
MCP_SECRET = Secret(f"mcpServers.{MCP_SERVER_NAME}.headers.Authorization", "")


@dataclass
class Outcome:
    """What `configure gemini` did (also its `--json` output)."""

    config: str  # the .env file
    dry_run: bool
    written: bool
    backup: str | None
    settings: str  # settings.json
    settings_written: bool
    settings_backup: str | None
    base_url: str
    model: str
    editor_model: str
    router_model: str | None  # `--router-model`: Gemini CLI's background requests go there
    context_window: int | None
    placeholder_key: bool  # the bridge wants no key: the key written is a placeholder
    mcp_url: str | None  # `--tools`: the bridge's MCP server, added as `maestro`; else None
    changes: list[dict[str, Any]]
    report: list[str] = field(default_factory=list)


def configure_gemini(
    model: str | None,
    url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    router_model: str | None = None,
    tools: bool = False,
) -> Outcome:
    root = bridge_root(url)
    listed = fetch_models(f"{root}/v1", api_key)
    choice = choose_gemini_model(listed, model)
    router = None if router_model is None else listed_model(listed, router_model, "--router-model")
    values = {
        BASE_URL_ENV: root,
        API_KEY_ENV: api_key or PLACEHOLDER_KEY,
        MODEL_ENV: choice.model,
    }
    mcp = McpServer.of_bridge(root, api_key) if tools else None
    folder = gemini_dir(environ)
    env_path, settings_path = folder / ".env", folder / "settings.json"
    env_text, env_changes = merged_config(env_path, ENV_LABEL, lambda t: merge_env(t, values))
    settings_text, settings_changes = merged_config(
        settings_path, SETTINGS_LABEL, lambda t: merge_settings(t, router, mcp)
    )
    stamp = now or datetime.now()
    env_backup = write_changes(env_path, env_text, env_changes, dry_run, stamp, ENV_LABEL)
    settings_backup = write_changes(
        settings_path, settings_text, settings_changes, dry_run, stamp, SETTINGS_LABEL
    )
    outcome = Outcome(
        config=str(env_path),
        dry_run=dry_run,
        written=bool(env_changes) and not dry_run,
        backup=None if env_backup is None else str(env_backup),
        settings=str(settings_path),
        settings_written=bool(settings_changes) and not dry_run,
        settings_backup=None if settings_backup is None else str(settings_backup),
        base_url=root,
        model=choice.model,
        editor_model=choice.editor_model,
        router_model=router,
        context_window=choice.context_window,
        placeholder_key=api_key is None,
        mcp_url=None if mcp is None else mcp.url,
        changes=SECRET.changes(env_changes) + MCP_SECRET.changes(settings_changes),
    )
    outcome.report = report_lines(outcome, choice, env_changes, settings_changes, environ)
    return outcome


def report_lines(
    outcome: Outcome,
    choice: GeminiChoice,
    env_changes: list[Change],
    settings_changes: list[Change],
    environ: Mapping[str, str],
) -> list[str]:
    lines: list[str] = []
    for path, changes, backup in (
        (outcome.config, env_changes, outcome.backup),
        (outcome.settings, settings_changes, outcome.settings_backup),
    ):
        lines += change_lines(
            path,
            changes,
            dry_run=outcome.dry_run,
            backup=backup,
            unchanged=f"{path} already points Gemini CLI at the bridge: nothing to change.",
            show=SECRET.show if path == outcome.config else MCP_SECRET.show,
        )
    notes = [] if choice.editor_model == choice.model else [f"answered by {choice.editor_model!r}"]
    if choice.context_window:
        notes.append(f"{choice.context_window} input tokens")
    detail = f" ({', '.join(notes)})" if notes else ""
    lines.append(f"Gemini CLI asks for {choice.model!r}{detail}.")
    if outcome.router_model is not None:
        lines.append(
            f"Its model router and background checks (next speaker, loops, summaries of "
            f"tool output, edit fixes) ask for {outcome.router_model!r}."
        )
    if outcome.mcp_url is not None:
        lines.append(
            f"Gemini CLI offers the editor's tools from the MCP server {MCP_SERVER_NAME!r} at "
            f"{outcome.mcp_url} (`gemini mcp list` shows it; in trusted folders only). "
            + TOOLS_OFF_NOTE
        )
        if not outcome.placeholder_key:
            lines.append(KEY_ENV_NOTE.format(client="Gemini CLI", command="gemini"))
    if outcome.placeholder_key:
        lines.append(
            f"The bridge wants no API key: {API_KEY_ENV} is the placeholder {PLACEHOLDER_KEY!r}."
        )
    else:
        lines.append(f"{API_KEY_ENV} holds the bridge's API key.")
    # Measured with Gemini CLI 0.61.0: a variable of the environment wins over the .env.
    for name in (BASE_URL_ENV, API_KEY_ENV, MODEL_ENV):
        if environ.get(name):
            lines.append(
                f"{name} is set here and wins over the .env: unset it where you run gemini."
            )
    lines.append(
        "Gemini CLI reads this .env only in folders you trust (trust the folder when it asks; "
        "for `gemini -p` in a new folder, export GEMINI_CLI_TRUST_WORKSPACE=true), and only "
        "when the folder and its parents have no .env or .gemini/.env of their own."
    )
    return lines
