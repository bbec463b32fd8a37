"""Run the real Claude Code CLI in print mode (`claude -p`) against a local base URL.

A test helper, not a test module. `run_claude(...)` starts `claude -p PROMPT` in a session
of its own (its own process group), in the given working directory, with an isolated HOME and
CLAUDE_CONFIG_DIR (the real ~/.claude is never read or written), and with every kind of
traffic but the API calls to the base URL turned off. Whatever happens (an exit, a timeout,
an exception in the caller's thread), the CLI, everything it started and every process left in
its group are killed before `run_claude` returns or raises.

The binary: $MAESTRO_CLAUDE_BIN, else `<repo>/.cache/claude-code` (where scripts/test installs
it), else `claude` on PATH. Without one, `claude_or_skip()` skips the test, or fails it when $CI
is set (as the Codex tests do).

Permissions: `--dangerously-skip-permissions` is refused when running as root, so the CLI is
given `--permission-mode dontAsk --allowedTools Bash,Write,Edit,Read`: those tools run without
a prompt, anything else is denied (print mode cannot ask).
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_runs import (
    ClientBinary,
    CliRun,
    client_env,
    given_options,
    run_cli,
)
from conftest import REPO_ROOT

CLAUDE_VERSION = "2.1.330"
CLAUDE_TIMEOUT = 120.0
ALLOWED_TOOLS = "Bash,Write,Edit,Read"
DUMMY_KEY = "dummy-claude-key"
CACHED_BIN = REPO_ROOT / ".cache" / "claude-code" / "node_modules" / ".bin" / "claude"

# What keeps the CLI quiet and offline: no telemetry, error reports, auto-updates, feedback
# surveys or other "nonessential" calls; the key goes to the base URL only.
OFFLINE_ENV = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
    "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
    "CLAUDE_CODE_DISABLE_FEATURE_FLAGS": "1",
    "NO_COLOR": "1",
}
# For tests of error answers: by default the CLI retries 401, 429, 5xx and 529 with backoff
# for minutes (measured: 7 tries in 60 s); with this it stops at the first. (A 400 is re-sent
# up to 5 times all the same, each time with fewer betas: its fallback for strict gateways.)
NO_RETRIES_ENV = {"CLAUDE_CODE_MAX_RETRIES": "0"}
# Variables of the developer's own setup that would send the CLI elsewhere or change its models.
CLEARED_ENV_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "CLAUDECODE", "AWS_BEARER_TOKEN_BEDROCK")


CLAUDE = ClientBinary(
    "MAESTRO_CLAUDE_BIN",
    CACHED_BIN,
    "claude",
    "Claude Code CLI",
    f"npm install --prefix .cache/claude-code @anthropic-ai/claude-code@{CLAUDE_VERSION}",
)
claude_candidates = CLAUDE.candidates
find_claude = CLAUDE.find
claude_or_skip = CLAUDE.or_skip


class ClaudeRun(CliRun):
    """One `claude -p` run, ended (`json_result()`: the run's result)."""


def prepare_home(home: Path, workdir: Path) -> Path:
    """An empty HOME with a CLAUDE_CONFIG_DIR that says onboarding is done and `workdir` is
    trusted, so that no first-run screen or trust question can wait for an answer."""
    config_dir = home / ".claude"
    config_dir.mkdir(parents=True, exist_ok=True)
    state = {
        "hasCompletedOnboarding": True,
        "bypassPermissionsModeAccepted": False,
        "projects": {str(workdir): {"hasTrustDialogAccepted": True}},
    }
    (config_dir / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
    return config_dir


def claude_env(base_url: str, home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment: ours minus any Anthropic/Claude settings, plus the base URL,
    a dummy key (sent as `Authorization: Bearer`), the offline switches and the isolated HOME."""
    own = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_AUTH_TOKEN": DUMMY_KEY,
    }
    return client_env(CLEARED_ENV_PREFIXES, OFFLINE_ENV, own, extra)


def claude_command(
    claude_bin: str,
    prompt: str,
    *,
    model: str | None = None,
    output_format: str | None = None,
    extra_args: tuple[str, ...] = (),
) -> list[str]:
    command = [claude_bin, "-p", "--permission-mode", "dontAsk", "--allowedTools", ALLOWED_TOOLS]
    command += given_options(("--model", model), ("--output-format", output_format))
    # `--allowedTools` takes any number of values: `--` ends them, so the prompt stays a prompt.
    return [*command, *extra_args, "--", prompt]


def run_claude(
    claude_bin: str,
    base_url: str,
    prompt: str,
    *,
    cwd: Path,
    home: Path,
    model: str | None = None,
    output_format: str | None = None,
    timeout: float = CLAUDE_TIMEOUT,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> ClaudeRun:
    """`claude -p PROMPT` in `cwd` against `base_url` (no `/v1`: the CLI adds it).

    `home` becomes HOME (created and prepared when needed); `env` adds to or overrides the
    variables of `claude_env`. A timeout is no exception: the result says `timed_out`."""
    prepare_home(home, cwd)
    command = claude_command(
        claude_bin, prompt, model=model, output_format=output_format, extra_args=extra_args
    )
    env_vars = claude_env(base_url, home, env)
    return ClaudeRun(command, *run_cli(command, cwd, env_vars, timeout))
