"""Run the real Aider (`aider --message ...`) against a local OpenAI-compatible base URL.

A test helper, not a test module. `run_aider(...)` starts `aider --message PROMPT FILES` in a
session of its own (its own process group), in the given git working directory, with an
isolated HOME (the real ~/.aider and ~/.gitconfig are never read or written), and with every
kind of traffic but the API calls to the base URL turned off. Whatever happens (an exit, a
timeout, an exception in the caller's thread), Aider, everything it started and every process
left in its group are killed before `run_aider` returns or raises.

Aider keeps its defaults otherwise: streaming, the edit format and weak model it picks for the
model's name, auto commits. What keeps it offline (measured with strace, aider-chat 0.86.2):

* `--no-check-update`: else it asks pypi.org for a newer version.
* `--no-analytics`: else, in a fresh HOME, it asks to opt in (and `--yes-always` says yes).
* `--no-show-release-notes`: else, on a first run, it offers the release notes and
  `--yes-always` opens a browser.
* `LITELLM_LOCAL_MODEL_COST_MAP=True`: else importing litellm downloads its model cost map.
* a fresh model-info cache in HOME (`~/.aider/caches/model_prices_and_context_window.json`):
  else Aider downloads litellm's model list from GitHub at startup (once a day). For a name
  litellm does not know (such as `openai/sim-echo`) the cache also describes the model: else
  Aider warns about the unknown context window and `--yes-always` opens its documentation.

The binary: $MAESTRO_AIDER_BIN, else `<repo>/.cache/aider/bin/aider` (where scripts/test
installs it, in a venv of its own), else `aider` on PATH. Without one, `aider_or_skip()` skips
the test, or fails it when $CI is set.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_runs import ClientBinary, CliRun, client_env, run_cli
from conftest import REPO_ROOT

AIDER_VERSION = "0.86.2"
AIDER_TIMEOUT = 120.0
DUMMY_KEY = "dummy-aider-key"
CACHED_BIN = REPO_ROOT / ".cache" / "aider" / "bin" / "aider"
MODEL_INFO_CACHE = Path(".aider") / "caches" / "model_prices_and_context_window.json"
# What a model name litellm does not know is described with (litellm's own fields).
UNKNOWN_MODEL_INFO: dict[str, object] = {
    "max_input_tokens": 128_000,
    "max_output_tokens": 16_384,
    "input_cost_per_token": 0.0,
    "output_cost_per_token": 0.0,
    "litellm_provider": "openai",
    "mode": "chat",
}

OFFLINE_ARGS = ("--no-check-update", "--no-analytics", "--no-show-release-notes")
# Aider in a pipe: no colours, no prompt_toolkit input (there is no terminal).
PIPE_ARGS = ("--no-pretty", "--no-fancy-input")
OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "NO_COLOR": "1",
    "GIT_TERMINAL_PROMPT": "0",
}
# Variables of the developer's own setup that would send Aider elsewhere or change its models.
CLEARED_ENV_PREFIXES = (
    "AIDER_",
    "OPENAI_",
    "ANTHROPIC_",
    "LITELLM_",
    "OPENROUTER_",
    "GIT_",
    "HTTP_PROXY",
    "HTTPS_PROXY",
)


AIDER = ClientBinary(
    "MAESTRO_AIDER_BIN",
    CACHED_BIN,
    "aider",
    "Aider",
    f"python3 -m venv .cache/aider && .cache/aider/bin/pip install aider-chat=={AIDER_VERSION}",
)
aider_candidates = AIDER.candidates
find_aider = AIDER.find
aider_or_skip = AIDER.or_skip


class AiderRun(CliRun):
    """One `aider --message` run, ended."""


def prepare_home(home: Path, describe: str | None) -> None:
    """An empty HOME with a git identity and a fresh model-info cache, which keeps Aider from
    downloading litellm's model list; it describes the model `describe` when given."""
    cache = home / MODEL_INFO_CACHE
    cache.parent.mkdir(parents=True, exist_ok=True)
    # Aider downloads when the cache is missing, old or empty; litellm's local map (the
    # cache's source) answers for every model the cache does not name.
    entries = {describe or "maestro-bridge/none": UNKNOWN_MODEL_INFO}
    cache.write_text(json.dumps(entries), encoding="utf-8")
    write_git_identity(home)


def write_git_identity(home: Path) -> None:
    """A ~/.gitconfig with the name and email Aider's commits (and the tests') are made with."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Aider Test\n\temail = aider-test@example.invalid\n", encoding="utf-8"
    )


def aider_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Aider's environment: ours minus any Aider/OpenAI/litellm/git settings and proxies, plus
    the offline switches and the isolated HOME."""
    own = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return client_env(CLEARED_ENV_PREFIXES, OFFLINE_ENV, own, extra, any_case=True)


def aider_command(
    aider_bin: str,
    base_url: str,
    model: str,
    message: str,
    files: tuple[str, ...] = (),
    extra_args: tuple[str, ...] = (),
    api_key: str = DUMMY_KEY,
) -> list[str]:
    return [
        aider_bin,
        "--openai-api-base",
        base_url,
        "--openai-api-key",
        api_key,
        "--model",
        model,
        "--yes-always",
        *OFFLINE_ARGS,
        *PIPE_ARGS,
        *extra_args,
        "--message",
        message,
        *files,
    ]


def run_aider(
    aider_bin: str,
    base_url: str,
    message: str,
    *,
    cwd: Path,
    home: Path,
    model: str,
    known_model: bool = False,
    files: tuple[str, ...] = (),
    timeout: float = AIDER_TIMEOUT,
    extra_args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    wrapper: tuple[str, ...] = (),
    api_key: str = DUMMY_KEY,
) -> AiderRun:
    """`aider --message MESSAGE FILES` in `cwd` (a git repository) against `base_url` (with
    `/v1`), asking for `model` (`openai/NAME`).

    `home` becomes HOME (created and prepared when needed); `env` adds to or overrides the
    variables of `aider_env`; `wrapper` goes before the command (such as strace). A timeout is
    no exception: the result says `timed_out`."""
    prepare_home(home, None if known_model else model)
    aider = aider_command(aider_bin, base_url, model, message, files, extra_args, api_key)
    command = [*wrapper, *aider]
    return AiderRun(command, *run_cli(command, cwd, aider_env(home, env), timeout))
