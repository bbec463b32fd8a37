"""The one task the Aider tests give it: fix a typo in a file of a fresh git repository.

Shared by the capture test, the recorder (tests/record_aider.py) and the end-to-end test, so
that the saved capture is what the end-to-end test's Aider sends. The answers are written in
the edit format Aider picks for the model's name (measured with aider-chat 0.86.2):

* `openai/gpt-4.1`, a name litellm knows: the `diff` format (SEARCH/REPLACE blocks), the repo
  map, and `openai/gpt-4.1-mini` as the weak model that writes the commit message;
* `openai/sim-echo`, a name it does not know: the `whole` format (the whole new file in a
  fence), and the same model for the commit message.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from aider_cli import write_git_identity

FILE_NAME = "greeting.py"
BEFORE = 'def greet() -> str:\n    return "Hello, wrold!"\n'
AFTER = 'def greet() -> str:\n    return "Hello, world!"\n'
PROMPT = "Please fix the typo in the greeting."
COMMIT_MESSAGE = "Fix the typo in the greeting"
FIRST_COMMIT = "Add the greeting"
# What only the commit-message request holds: Aider sends the diff it is to describe.
DIFF_MARKER = "# Diffs:"
# The diff format's rules, which Aider sends last, as a system message after the user's.
DIFF_RULES_MARKER = r"SEARCH/REPLACE block\* Rules"

SEARCH_REPLACE = (
    f"{FILE_NAME}\n```python\n<<<<<<< SEARCH\n"
    '    return "Hello, wrold!"\n'
    "=======\n"
    '    return "Hello, world!"\n'
    ">>>>>>> REPLACE\n```\n"
)
WHOLE_FILE = f"{FILE_NAME}\n```python\n{AFTER}```\n"


@dataclass(frozen=True)
class AiderModel:
    name: str  # what Aider is given: `openai/NAME`
    edit_format: str
    weak_model: str  # the model Aider asks for the commit message, as sent (no `openai/`)
    edit: str  # the answer that makes the change, in this edit format
    known: bool  # litellm knows the name (no description of the model needed)

    @property
    def sent_name(self) -> str:
        """The `model` of the request: litellm drops the `openai/` provider prefix."""
        return self.name.removeprefix("openai/")


GPT_41 = AiderModel(
    "openai/gpt-4.1", "diff", "gpt-4.1-mini", "Fixing it.\n\n" + SEARCH_REPLACE, known=True
)
SIM_ECHO = AiderModel("openai/sim-echo", "whole", "sim-echo", WHOLE_FILE, known=False)


def git(workdir: Path, home: Path, *args: str) -> str:
    """`git ARGS` in `workdir` with the isolated HOME (its .gitconfig gives the identity)."""
    result = subprocess.run(
        ["git", *args],
        cwd=workdir,
        env={"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout


def make_repository(workdir: Path, home: Path) -> Path:
    """A git repository in `workdir` with one commit holding the file; returns the file."""
    workdir.mkdir(parents=True, exist_ok=True)
    write_git_identity(home)
    target = workdir / FILE_NAME
    target.write_text(BEFORE, encoding="utf-8")
    git(workdir, home, "init", "--quiet", "--initial-branch=main")
    git(workdir, home, "add", FILE_NAME)
    git(workdir, home, "commit", "--quiet", "--message", FIRST_COMMIT)
    return target


def commit_subjects(workdir: Path, home: Path) -> list[str]:
    """The subjects of the commits, newest first."""
    return git(workdir, home, "log", "--format=%s").splitlines()


def committed_file(workdir: Path, home: Path) -> str:
    """The file as the newest commit holds it."""
    return git(workdir, home, "show", f"HEAD:{FILE_NAME}")
