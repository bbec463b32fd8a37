"""`maestro-bridge run AGENT [OPTIONS] -- ARGS`: the agent's own arguments come after `--`,
taken out before argparse reads the rest (its `--` handling under subcommands varies across
Python versions)."""

from __future__ import annotations


def split_agent_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """What argparse reads, and the agent's own arguments (after the first `--`)."""
    if argv[:1] != ["run"] or "--" not in argv:
        return argv, []
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1 :]
