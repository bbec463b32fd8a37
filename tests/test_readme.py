"""Issue 45: the README stays short (what it is, the two commands first, a quick start, links
into the documentation site), and its links lead somewhere."""

from __future__ import annotations

import re

from conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
INSTALL_AND_SERVE = (
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/maestro-bridge serve"
)
RUN_ALL_TESTS = "bash scripts/test"


def test_the_readme_stays_under_250_lines() -> None:
    lines = README.read_text("utf-8").splitlines()
    assert len(lines) < 250, len(lines)


def test_the_two_commands_come_first() -> None:
    text = README.read_text("utf-8")
    # Nothing but the title and a paragraph before the first code block, which holds the two
    # commands, the install-and-serve one first.
    before, block = text.split("```bash\n", 1)
    assert "\n#" not in before.split("\n", 1)[1], before
    assert before.count("\n\n") <= 3, before
    commands = [
        line
        for line in block.split("```", 1)[0].splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert commands == [INSTALL_AND_SERVE, RUN_ALL_TESTS], commands


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    text = README.read_text("utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(relative) >= 10, relative
    for link in relative:
        path = link.partition("#")[0]
        assert path, f"{link}: an anchor in the README itself, which moved to docs/"
        assert (REPO_ROOT / path).is_file(), link
