"""The layers and what may import what (docs/architecture.md), as import-linter contracts
(`[tool.importlinter]` in pyproject.toml), run here as scripts/test runs them; and that the
contracts do catch what they forbid, each on a copy of the source with one import added.

Issue 27 began it: the shared layers (`bridge/core`, `bridge/http`) know no dialect and
`bridge/gemini/models.py` no longer imports `bridge/http/model_routes.py` (nor the reverse): the
shared model list asks the dialect's registered answer, checked on a real `serve` below.
Issue 45 made it the whole house: no import loops, no import upwards (function-level and
TYPE_CHECKING imports count), every module of bridge/ in a layer.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import aiohttp
import grimp
import pytest
from conftest import REPO_ROOT, BridgeServer
from processes import run

SHIPPED = ("bridge", "lsp", "headless_editor")
CONTRACTS = 8
# import-linter's own command, run by the Python of this test (a venv's `lint-imports` script
# is in Scripts\ on Windows, bin/ elsewhere).
LINT_IMPORTS = (
    sys.executable,
    "-c",
    "from importlinter.cli import lint_imports_command; lint_imports_command()",
    "--no-cache",
    "--no-logo",
)


def lint_imports(root: Path) -> tuple[int, str]:
    done = run([*LINT_IMPORTS], cwd=root, timeout=120)
    return done.returncode, done.stdout + done.stderr


def test_the_import_contracts_hold() -> None:
    code, out = lint_imports(REPO_ROOT)
    assert code == 0, out
    assert f"Contracts: {CONTRACTS} kept, 0 broken." in out, out


def copy_of_the_source(into: Path) -> Path:
    """The Python packages and the contracts, without the rest (node_modules, caches)."""
    only_python = shutil.ignore_patterns("node_modules", "__pycache__", "*.json", "*.js*")
    for folder in (*SHIPPED, "tests", "bench"):
        shutil.copytree(REPO_ROOT / folder, into / folder, ignore=only_python)
    shutil.copy(REPO_ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


# Each: a file, what is added to it, and the contract that must then say BROKEN.
VIOLATIONS = {
    "core imports the settings above it, inside a function": (
        "bridge/core/ids.py",
        "def _later() -> None:\n    from bridge.settings import BridgeSettings\n",
        "The bridge package's layers, from the CLI down to the core BROKEN",
    ),
    "a dialect imports another": (
        "bridge/anthropic/errors.py",
        "from bridge.responses import events\n",
        "No dialect imports another BROKEN",
    ),
    "a loop made of a TYPE_CHECKING import": (
        "bridge/responses/open_sockets.py",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        "    from bridge.responses.websocket import ResponsesSocket\n",
        "No import loops between the modules or folders of any one folder BROKEN",
    ),
    "the HTTP layer imports the headless editor": (
        "bridge/http/sse.py",
        "from headless_editor import editor\n",
        "but the \nCLI BROKEN",
    ),
    "the headless editor imports the server's settings": (
        "headless_editor/tokens.py",
        "from bridge.settings import BridgeSettings\n",
        "shares only the core and the JSON-RPC framing with the \nserver BROKEN",
    ),
    "a module of bridge/ left out of the layers": (
        "bridge/stray.py",
        "from bridge.core import ids\n",
        "The bridge package's layers, from the CLI down to the core BROKEN",
    ),
}


@pytest.mark.parametrize("case", list(VIOLATIONS))
def test_the_contracts_catch_an_import_that_breaks_a_rule(case: str, tmp_path: Path) -> None:
    path, added, broken = VIOLATIONS[case]
    root = copy_of_the_source(tmp_path)
    code, out = lint_imports(root)
    assert code == 0 and f"{CONTRACTS} kept" in out, out  # the copy itself keeps them all
    target = root / path
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(f"{text}\n{added}", encoding="utf-8")
    code, out = lint_imports(root)
    assert code != 0, out
    assert broken in out, out


def test_no_shipped_module_imports_a_test_or_benchmark_module_by_its_bare_name() -> None:
    """The tests and bench/ import each other by bare names (`from conftest import ...`, with
    their folders on sys.path): a shipped module doing so would pass the `tests`/`bench`
    contract, so the bare names are checked here."""
    bare = {
        path.stem
        for folder in ("tests", "bench")
        for path in (REPO_ROOT / folder).glob("*.py")
        if path.stem != "__init__"
    }
    graph = grimp.build_graph(*SHIPPED, include_external_packages=True)
    offending = {
        (importer, imported)
        for imported in bare & graph.modules
        for importer in graph.find_modules_that_directly_import(imported)
        if importer.split(".")[0] in SHIPPED
    }
    assert offending == set(), offending


async def test_the_shared_model_list_answers_google_clients_in_their_shape(
    bridge_server: BridgeServer,
) -> None:
    url = f"{bridge_server.base_url}/models"
    google = {"x-goog-api-key": "any"}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as http:
        async with http.get(url) as reply:
            openai_shape = await reply.json()
        async with http.get(url, headers=google) as reply:
            google_shape = await reply.json()
        async with http.get(f"{url}/sim-echo", headers=google) as reply:
            one = await reply.json()
        async with http.get(f"{url}/no-such-model", headers=google) as reply:
            missing = await reply.json()
            missing_status = reply.status
    assert openai_shape["object"] == "list"
    assert "sim-echo" in [entry["id"] for entry in openai_shape["data"]]
    assert "models/sim-echo" in [entry["name"] for entry in google_shape["models"]]
    assert (
        one["name"] == "models/sim-echo" and "generateContent" in one["supportedGenerationMethods"]
    )
    assert missing_status == 404
    assert missing["error"]["status"] == "NOT_FOUND", missing
