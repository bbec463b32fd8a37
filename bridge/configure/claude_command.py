"""`maestro-bridge configure claude-code`: point Claude Code at the running bridge in one step.

It asks the bridge for its models, picks the ones Claude Code should ask for
(`claude_choice`), merges them with the bridge's address and key into the `env` object of
Claude Code's `settings.json` (`claude_settings`), with a backup of the old file, and prints
what changed (the key redacted). With `--tools`, it also adds the bridge's MCP server (the
editor's tools) to Claude Code's `.claude.json` (`claude_mcp`); both files are read and merged
before either is written. `--json` prints the same as one JSON object, for the VS Code command.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bridge.configure.bridge_models import bridge_root, fetch_models, listed_model
from bridge.configure.claude_choice import ClaudeChoice, choose_claude_models
from bridge.configure.claude_mcp import AUTHORIZATION_KEY, claude_global_file, merge_mcp
from bridge.configure.claude_settings import (
    AUTH_TOKEN_KEY,
    PLACEHOLDER_TOKEN,
    ClaudeSettings,
    claude_config_dir,
    merge,
)
from bridge.configure.config_file import Change, merged_config, write_changes
from bridge.configure.mcp_server import (
    KEY_ENV_NOTE,
    MCP_SERVER_NAME,
    TOOLS_OFF_NOTE,
    McpServer,
)
from bridge.configure.report import Secret, change_lines

# Claude Code 2.1.330 reads a smaller CLAUDE_CODE_AUTO_COMPACT_WINDOW as this many tokens
# (and warns): measured in its bundled code, where the minimum is 1e5.
CLAUDE_MIN_COMPACT_WINDOW = 100_000
SECRET = Secret(f"env.{AUTH_TOKEN_KEY}", PLACEHOLDER_TOKEN)
MCP_SECRET = Secret(AUTHORIZATION_KEY, "")


@dataclass
class Outcome:
    """What `configure claude-code` did (also its `--json` output)."""

    config: str
    dry_run: bool
    written: bool
    backup: str | None
    base_url: str
    model: str
    opus_model: str
    sonnet_model: str
    haiku_model: str
    small_model: str | None  # `--small-model`: Claude Code's background requests go there
    context_window: int | None
    placeholder_token: bool  # the bridge wants no key: the token written is a placeholder
    mcp_url: str | None  # `--tools`: the bridge's MCP server, added as `maestro`; else None
    mcp_config: str | None  # `--tools`: the file it is in (.claude.json)
    mcp_written: bool
    mcp_backup: str | None
    changes: list[dict[str, Any]]
    report: list[str] = field(default_factory=list)


def configure_claude(
    model: str | None,
    url: str,
    api_key: str | None,
    dry_run: bool,
    environ: Mapping[str, str],
    now: datetime | None = None,
    small_model: str | None = None,
    tools: bool = False,
) -> Outcome:
    root = bridge_root(url)
    listed = fetch_models(f"{root}/v1", api_key)
    choice = choose_claude_models(listed, model)
    small = None if small_model is None else listed_model(listed, small_model, "--small-model")
    token = api_key or PLACEHOLDER_TOKEN
    settings = ClaudeSettings(
        root, token, choice.model, choice.family_models, choice.context_window, small
    )
    path = claude_config_dir(environ) / "settings.json"
    new, changes = merged_config(path, "Claude Code's settings", lambda text: merge(text, settings))
    mcp = McpServer.of_bridge(root, api_key) if tools else None
    mcp_path = claude_global_file(environ)
    mcp_text, mcp_changes = "", list[Change]()  # no `--tools`: that file is left alone
    if mcp is not None:
        mcp_text, mcp_changes = merged_config(mcp_path, MCP_LABEL, lambda t: merge_mcp(t, mcp))
    stamp = now or datetime.now()
    backup = write_changes(path, new, changes, dry_run, stamp, "Claude Code's settings")
    mcp_backup = write_changes(mcp_path, mcp_text, mcp_changes, dry_run, stamp, MCP_LABEL)
    outcome = Outcome(
        config=str(path),
        dry_run=dry_run,
        written=bool(changes) and not dry_run,
        backup=None if backup is None else str(backup),
        base_url=root,
        model=choice.model,
        opus_model=choice.family_models["opus"],
        sonnet_model=choice.family_models["sonnet"],
        haiku_model=small or choice.family_models["haiku"],
        small_model=small,
        context_window=choice.context_window,
        placeholder_token=api_key is None,
        mcp_url=None if mcp is None else mcp.url,
        mcp_config=None if mcp is None else str(mcp_path),
        mcp_written=bool(mcp_changes) and not dry_run,
        mcp_backup=None if mcp_backup is None else str(mcp_backup),
        changes=SECRET.changes(changes) + MCP_SECRET.changes(mcp_changes),
    )
    outcome.report = report_lines(outcome, choice, changes)
    if mcp is not None:
        outcome.report += mcp_report_lines(outcome, mcp_changes)
    if environ.get("ANTHROPIC_API_KEY"):
        # Measured with Claude Code 2.1.330: it then sends that key too, as x-api-key.
        outcome.report.append(
            "ANTHROPIC_API_KEY is set here: Claude Code also sends it to the bridge (as "
            "x-api-key), which uses the token; unset it where you run claude."
        )
    return outcome


MCP_LABEL = "Claude Code's configuration"


def mcp_report_lines(outcome: Outcome, changes: list[Change]) -> list[str]:
    config = outcome.mcp_config or ""
    lines = change_lines(
        config,
        changes,
        dry_run=outcome.dry_run,
        backup=outcome.mcp_backup,
        unchanged=f"{config} already has the bridge's MCP server: nothing to change.",
        show=MCP_SECRET.show,
    )
    lines.append(
        f"Claude Code offers the editor's tools from the MCP server {MCP_SERVER_NAME!r} at "
        f"{outcome.mcp_url} (as mcp__{MCP_SERVER_NAME}__<tool>; `claude mcp list` shows it). "
        + TOOLS_OFF_NOTE
    )
    if not outcome.placeholder_token:
        lines.append(KEY_ENV_NOTE.format(client="Claude Code", command="claude"))
    return lines


def report_lines(outcome: Outcome, choice: ClaudeChoice, changes: list[Change]) -> list[str]:
    lines = change_lines(
        outcome.config,
        changes,
        dry_run=outcome.dry_run,
        backup=outcome.backup,
        unchanged=f"{outcome.config} already points Claude Code at the bridge: nothing to change.",
        show=SECRET.show,
    )
    window = choice.context_window
    tokens = f" ({window} input tokens)" if window else ""
    family_models = {**choice.family_models, "haiku": outcome.haiku_model}
    families = ", ".join(f"{name} -> {model}" for name, model in family_models.items())
    lines.append(f"Claude Code asks for {choice.model!r}{tokens}; {families}.")
    if outcome.small_model is not None:
        lines.append(
            f"Its background requests (prompt hooks and other one-shot helpers) go to "
            f"{outcome.small_model!r}."
        )
    if window is not None and window < CLAUDE_MIN_COMPACT_WINDOW:
        lines.append(
            f"Claude Code compacts a conversation at {CLAUDE_MIN_COMPACT_WINDOW} tokens at the "
            f"earliest, above this model's {window}: long sessions may fail before it does."
        )
    if outcome.placeholder_token:
        lines.append(
            f"The bridge wants no API key: {AUTH_TOKEN_KEY} is the placeholder "
            f"{PLACEHOLDER_TOKEN!r}."
        )
    else:
        lines.append(f"{AUTH_TOKEN_KEY} holds the bridge's API key.")
    return lines
