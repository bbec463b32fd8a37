"""`maestro-bridge run AGENT [-- ARGS]`: finds the bridge (or starts one with `--headless`),
picks the model, points the agent at both for this run only and runs it in the foreground.

Nothing of the user's is written: what the agent is told comes as options, environment
variables, or files in a temporary folder of the run (removed afterwards).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from bridge.run.agent_spec import Launch, Target

# The agent names `run` takes, and where each one installs from (for the message when its
# program is not on PATH).
INSTALL = {
    "codex": "npm install -g @openai/codex",
    "claude": "npm install -g @anthropic-ai/claude-code",
    "gemini": "npm install -g @google/gemini-cli",
    "aider": "python -m pip install aider-install && aider-install",
    "opencode": "npm install -g opencode-ai",
    "qwen": "npm install -g @qwen-code/qwen-code",
}


def add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser(
        "run",
        help="run an agent (codex, claude, gemini, aider, opencode, qwen) on the editor's "
        "models, for this run only",
        description="Run AGENT on the running bridge's models without changing its "
        "configuration. Arguments after `--` go to the agent: "
        "maestro-bridge run codex -- exec 'fix the tests'",
    )
    run.add_argument("agent", choices=sorted(INSTALL), help="the agent to run")
    run.add_argument(
        "--model",
        metavar="NAME",
        help="the model, as the bridge lists it "
        "(default: the agent's configured one when the bridge has it, else the "
        "editor's default)",
    )
    run.add_argument(
        "--url",
        metavar="URL",
        help="the bridge (default: $MAESTRO_BRIDGE_URL, else http://127.0.0.1:23335)",
    )
    run.add_argument(
        "--api-key",
        metavar="KEY",
        help="the bridge's API key (default: "
        "$MAESTRO_BRIDGE_API_KEY, else the key file `serve` writes)",
    )
    run.add_argument(
        "--headless",
        action="store_true",
        help="when no bridge answers, start "
        "`maestro-bridge serve` (the headless editor) for this run",
    )
    run.add_argument(
        "--serve-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for that `serve` (repeatable; e.g. --serve-arg=--tools)",
    )


def run_run(args: argparse.Namespace, agent_args: list[str]) -> int:
    from bridge.configure.bridge_models import BridgeUnavailable, ChoiceError
    from bridge.run.headless import HeadlessError
    from bridge.run.launch import exit_like

    try:
        program = _program(args.agent, os.environ)
        with _bridge(args) as (root, started):
            target, notes = _target(args, root)
            launch = _launcher(args.agent)(target, os.environ)
            with _run_folder(launch) as folder:
                env = launch.environment(dict(os.environ), folder)
                argv = [program, *_filled(launch, folder), *agent_args]
                shown = f"{args.agent} on {target.root}, model {target.model}"
                print(f"maestro-bridge: {shown}{notes}", file=sys.stderr)
                code = _foreground(argv, env, may_exec=not started and folder is None)
    except (BridgeUnavailable, ChoiceError, HeadlessError, ProgramMissing) as exc:
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 1
    return exit_like(code)


def _foreground(argv: list[str], env: dict[str, str], may_exec: bool) -> int:
    from bridge.run.launch import run_foreground

    return run_foreground(argv, env, may_exec)


class ProgramMissing(Exception):
    pass


def _program(agent: str, environ: Mapping[str, str]) -> str:
    program = "claude" if agent == "claude" else agent
    found = shutil.which(program, path=environ.get("PATH"))
    if found is None:
        raise ProgramMissing(f"{program} is not on PATH: install it ({INSTALL[agent]}).")
    return found


@contextlib.contextmanager
def _bridge(args: argparse.Namespace) -> Iterator[tuple[str, bool]]:
    """The root URL of the bridge to use, and whether this run started it."""
    from bridge.configure.bridge_models import BridgeUnavailable
    from bridge.run.bridge_check import health
    from bridge.run.connection import find_connection
    from bridge.run.headless import headless_bridge

    root = find_connection(args.url, args.api_key).root
    if health(root) is not None:
        yield root, False
        return
    if not args.headless:
        raise BridgeUnavailable(
            f"No Maestro Bridge answers at {root}. Open VS Code with the Maestro Bridge "
            "extension, start `maestro-bridge serve`, pass --url, or add --headless to start "
            "the headless editor for this run."
        )
    with headless_bridge(args.serve_arg) as started:
        yield started, True


@contextlib.contextmanager
def _run_folder(launch: Launch) -> Iterator[Path | None]:
    """The run's temporary folder with the launch's files in it (None when it has none)."""
    if not launch.needs_folder:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="maestro-bridge-run-") as name:
        folder = Path(name)
        for file_name, text in launch.files.items():
            (folder / file_name).write_text(text, encoding="utf-8")
        if launch.prepare is not None:
            launch.prepare(folder)
        yield folder


def _target(args: argparse.Namespace, root: str) -> tuple[Target, str]:
    from bridge.configure.bridge_models import fetch_models
    from bridge.run.configured_model import READERS
    from bridge.run.connection import find_connection
    from bridge.run.model_choice import choose_model, codex_name

    api_key = find_connection(root, args.api_key).api_key
    models = fetch_models(f"{root}/v1", api_key)
    configured = READERS[args.agent](os.environ)
    choice = choose_model(models, args.model, configured)
    model = codex_name(models, choice) if args.agent == "codex" else choice.model
    ids = tuple(model.id for model in models)
    target = Target(root, api_key, model, choice.context_window, ids)
    return target, f" ({choice.why})"


def _launcher(agent: str) -> Callable[[Target, Mapping[str, str]], Launch]:
    from bridge.run import agent_gemini, agents_args, agents_env

    launchers: dict[str, Callable[[Target, Mapping[str, str]], Launch]] = {
        "codex": agents_args.codex,
        "aider": agents_args.aider,
        "qwen": agents_args.qwen,
        "claude": agents_env.claude,
        "gemini": agent_gemini.gemini,
        "opencode": agents_env.opencode,
    }
    return launchers[agent]


def _filled(launch: Launch, folder: Path | None) -> list[str]:
    if folder is None:
        return list(launch.args)
    return [arg.replace("{run}", str(folder)) for arg in launch.args]
