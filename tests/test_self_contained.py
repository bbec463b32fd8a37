"""The repository stands on its own: nothing in it refers to a folder beside the clone.

The tests once read the Open Responses spec and the captured client requests from a `shared/`
folder next to the clone, so a plain clone failed its own tests. Their copies now live in
tests/fixtures/; this test keeps it that way for every tracked file.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import REPO_ROOT

# This file names the patterns it looks for, so it is the one file not searched.
THIS_FILE = Path(__file__).resolve().relative_to(REPO_ROOT).as_posix()

OUTSIDE_REFERENCES = re.compile(
    r"\.\./shared\b"  # the folder beside the clone
    r"|MAESTRO_"
    r"SHARED_DIR"  # the variable that pointed at it
    r"|/work/shared\b"  # where it sits on the development machines
    r"|(?<![\w.-])shared/(?:reference|fixtures|seeds|design|hooks)\b"  # shared/reference/...
    r"|parents\[\d\]\s*/\s*[\"']shared[\"']"  # a Path built to point beside the clone
)


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True, check=True, timeout=60
    )
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_no_tracked_file_refers_to_a_folder_beside_the_repository() -> None:
    files = tracked_files()
    assert "tests/fixtures/openresponses/openapi.json" in files  # the listing is real
    found: list[str] = []
    for name in files:
        path = REPO_ROOT / name
        if name == THIS_FILE or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            match = OUTSIDE_REFERENCES.search(line)
            if match:
                found.append(f"{name}:{number}: {match.group(0)}")
    assert not found, "references to a folder outside the repository:\n" + "\n".join(found)


def test_the_pattern_catches_each_way_of_referring_to_it() -> None:
    for line in (
        # Built from parts, so that this file itself holds no such reference.
        "json.load(open('.." + "/shared/reference/openresponses-openapi.json'))",
        'os.environ.get("MAESTRO_' + 'SHARED_DIR")',
        "see shared/fixtures/clients/codex-patch-1.json",
        'return Path(__file__).resolve().parents[2] / "' + 'shared"',
        "cp /work/shared/seeds/x .",
    ):
        assert OUTSIDE_REFERENCES.search(line), line
    for line in (
        "while five other test suites shared the machine",
        "one shared encoder",
        "tests/fixtures/clients/codex-patch-1.json",
        "shared_memory/reference",
    ):
        assert not OUTSIDE_REFERENCES.search(line), line
