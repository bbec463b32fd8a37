"""`maestro-bridge serve` starts from any folder, even one whose own `bridge/`, `lsp/` and
`headless_editor/` packages would shadow this project's (they raise when imported).

`python -m` puts the working folder first on sys.path; the console script does not, and the
language server it spawns is started without that entry too (headless_editor/spawn.py).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import running_bridge_server
from processes import run
from samples import output_text

from headless_editor.spawn import python_module_command

PACKAGES = ("bridge", "lsp", "headless_editor")
REPLY = "answered by the installed package"


@pytest.fixture
def shadowing_folder(tmp_path: Path) -> Path:
    """A user's folder with packages named like ours, each failing loudly when imported."""
    folder = tmp_path / "user-project"
    for name in PACKAGES:
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(
            f"raise ImportError('the folder\\'s own {name}/ was imported, not the package')\n",
            encoding="utf-8",
        )
    return folder


def console_script() -> Path:
    script = Path(sys.executable).with_name("maestro-bridge")
    assert script.is_file(), f"{script} is missing: install the package (pip install -e .)"
    return script


def post_json(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert reply.status == 200
        answer: dict[str, Any] = json.loads(reply.read())
        return answer


def test_the_folder_does_shadow_python_dash_m(shadowing_folder: Path) -> None:
    """The premise: `python -m` in that folder imports the folder's `bridge/`."""
    done = run([sys.executable, "-m", "bridge.cli", "--version"], cwd=shadowing_folder, timeout=60)
    assert done.returncode != 0
    assert "the folder's own bridge/ was imported" in done.stderr


def test_serve_starts_and_answers_from_a_shadowing_folder(shadowing_folder: Path) -> None:
    # A relative --script still means a file in the user's folder.
    rules = {"rules": [{"match": "who", "reply": [{"type": "text", "text": REPLY}]}]}
    (shadowing_folder / "rules.json").write_text(json.dumps(rules), encoding="utf-8")
    command = (str(console_script()), "serve")
    with running_bridge_server(
        "--script", "rules.json", command=command, cwd=shadowing_folder
    ) as server:
        answer = post_json(f"{server.base_url}/responses", {"model": "sim-echo", "input": "who"})
        assert answer["status"] == "completed"
        assert output_text(answer) == REPLY
    # Leaving the block stopped it with SIGTERM: exit code 0, no language server left.


@pytest.mark.parametrize("safe_path", [False, True], ids=["plain", "PYTHONSAFEPATH"])
def test_the_module_runner_drops_only_the_working_folder(
    shadowing_folder: Path, tmp_path: Path, safe_path: bool
) -> None:
    """How the language server (and the benchmark's bridge) is started: the module comes from
    the installed packages, and sys.path is what `python -c` has, minus the working folder.
    Under PYTHONSAFEPATH (3.11+), which leaves the folder out itself, nothing is removed."""
    probes = tmp_path / "probes"
    probes.mkdir()
    (probes / "path_probe.py").write_text(
        "import json, sys\nprint(json.dumps(sys.path))\n", encoding="utf-8"
    )
    env = {**os.environ, "PYTHONPATH": str(probes)}
    env.pop("PYTHONSAFEPATH", None)
    if safe_path:
        env["PYTHONSAFEPATH"] = "1"

    version = run(
        python_module_command("bridge.cli", "--version"), cwd=shadowing_folder, env=env, timeout=60
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("maestro-bridge ")

    listing = "import json, sys; print(json.dumps(sys.path))"
    plain = run([sys.executable, "-c", listing], cwd=shadowing_folder, env=env, timeout=60)
    runner = run(python_module_command("path_probe"), cwd=shadowing_folder, env=env, timeout=60)
    assert runner.returncode == 0, runner.stderr
    expected = json.loads(plain.stdout)
    if not safe_path:
        assert expected[0] == ""  # `-c` put the working folder first
        expected = expected[1:]
    assert json.loads(runner.stdout) == expected
