"""Run the real Gemini CLI non-interactively (`gemini -p PROMPT`) against a local base URL.

A test helper, not a test module. `run_gemini(...)` starts `gemini -p PROMPT` in a session of
its own (its own process group), in the given working directory, with an isolated HOME (the
real ~/.gemini is never read or written) and TMPDIR (where it writes its error reports), and
with every kind of traffic but the API calls to the base URL turned off. Whatever happens (an
exit, a timeout, an exception in the caller's thread), the CLI, everything it started (it
relaunches itself as a child Node process, and runs shell commands) and every process left in
its group are killed before `run_gemini` returns.

What it needs, measured with strace (`-e trace=connect`) on Gemini CLI 0.61.0:

* `security.auth.selectedType: "gemini-api-key"` in ~/.gemini/settings.json, with
  GEMINI_API_KEY: with GOOGLE_GEMINI_BASE_URL and no selected type the CLI picks its
  `gateway` type, which print mode refuses ("Invalid auth method selected.", exit 41).
* `security.folderTrust.enabled: false`: else an untrusted working directory ends print mode
  (exit 55; `--skip-trust` or GEMINI_CLI_TRUST_WORKSPACE=true would also do).
* `privacy.usageStatisticsEnabled: false`: else it sends usage statistics to
  play.googleapis.com and adds an `x-gemini-api-privileged-user-id` header to every request.
  It is the only other host it contacts in print mode; the update check, telemetry and the
  IDE integration are switched off all the same (`general.enableAutoUpdate`,
  `general.enableAutoUpdateNotification`, `telemetry.enabled`, `ide.enabled`).

The binary: $MAESTRO_GEMINI_BIN, else `<repo>/.cache/gemini-cli` (where scripts/test installs
it), else `gemini` on PATH. Without one, `gemini_or_skip()` skips the test, or fails it when $CI
is set.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runs import (
    ClientBinary,
    CliRun,
    client_env,
    given_options,
    run_cli,
)
from conftest import REPO_ROOT

GEMINI_VERSION = "0.61.0"
GEMINI_TIMEOUT = 120.0
DUMMY_KEY = "dummy-gemini-key"
CACHED_BIN = REPO_ROOT / ".cache" / "gemini-cli" / "node_modules" / ".bin" / "gemini"
# Tools run without asking (print mode cannot ask): `default` offers no tool that writes.
YOLO = "yolo"

OFFLINE_SETTINGS: dict[str, Any] = {
    "security": {
        "auth": {"selectedType": "gemini-api-key"},
        "folderTrust": {"enabled": False},
    },
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "ide": {"enabled": False},
}
OFFLINE_ENV = {"NO_BROWSER": "1", "NO_COLOR": "1"}
# Variables of the developer's own setup that would send the CLI elsewhere, change its model,
# its settings or its auth (GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT, CLOUD_SHELL...).
CLEARED_ENV_PREFIXES = (
    "GEMINI_",
    "GOOGLE_",
    "CLOUD_SHELL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
)


GEMINI = ClientBinary(
    "MAESTRO_GEMINI_BIN",
    CACHED_BIN,
    "gemini",
    "Gemini CLI",
    f"npm install --prefix .cache/gemini-cli @google/gemini-cli@{GEMINI_VERSION}",
)
gemini_candidates = GEMINI.candidates
find_gemini = GEMINI.find
gemini_or_skip = GEMINI.or_skip


class GeminiRun(CliRun):
    """One `gemini --prompt` run, ended (`json_result()`: `response`, `stats`...)."""


def prepare_home(home: Path, settings: dict[str, Any] | None = None) -> None:
    """An empty HOME with ~/.gemini/settings.json (OFFLINE_SETTINGS, or `settings`) and a
    TMPDIR of its own."""
    config = home / ".gemini"
    config.mkdir(parents=True, exist_ok=True)
    text = json.dumps(OFFLINE_SETTINGS if settings is None else settings, indent=2)
    (config / "settings.json").write_text(text, encoding="utf-8")
    (home / "tmp").mkdir(exist_ok=True)


def gemini_env(base_url: str, home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The CLI's environment: ours minus any Gemini/Google settings and proxies, plus the base
    URL, a dummy key (sent as `x-goog-api-key`), the offline switches and the isolated HOME."""
    own = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "TMPDIR": str(home / "tmp"),
        "GOOGLE_GEMINI_BASE_URL": base_url,
        "GEMINI_API_KEY": DUMMY_KEY,
    }
    return client_env(CLEARED_ENV_PREFIXES, OFFLINE_ENV, own, extra)


def gemini_command(
    gemini_bin: str,
    prompt: str,
    *,
    model: str | None = None,
    output_format: str | None = None,
    approval_mode: str | None = None,
    extra_args: tuple[str, ...] = (),
) -> list[str]:
    options = given_options(
        ("--model", model), ("--output-format", output_format), ("--approval-mode", approval_mode)
    )
    return [gemini_bin, *options, *extra_args, "--prompt", prompt]


def run_gemini(
    gemini_bin: str,
    base_url: str,
    prompt: str,
    *,
    cwd: Path,
    home: Path,
    model: str | None = None,
    output_format: str | None = None,
    approval_mode: str | None = None,
    timeout: float = GEMINI_TIMEOUT,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    settings: dict[str, Any] | None = None,
    wrapper: tuple[str, ...] = (),
) -> GeminiRun:
    """`gemini --prompt PROMPT` in `cwd` against `base_url` (the server's root: the CLI adds
    `/v1beta/...`).

    `home` becomes HOME (created and prepared: OFFLINE_SETTINGS, or `settings`); `env` adds to
    or overrides the variables of `gemini_env`; `wrapper` goes before the command (such as
    strace). A timeout is no exception: the result says `timed_out`."""
    prepare_home(home, settings)
    gemini = gemini_command(
        gemini_bin,
        prompt,
        model=model,
        output_format=output_format,
        approval_mode=approval_mode,
        extra_args=extra_args,
    )
    command = [*wrapper, *gemini]
    return GeminiRun(command, *run_cli(command, cwd, gemini_env(base_url, home, env), timeout))
