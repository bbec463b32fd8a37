"""Issue 45: the documentation's reference pages are generated from the code, and CI fails
when a checked-in page differs from what the code generates (`python -m scripts.reference`
writes them)."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from conftest import REPO_ROOT

from scripts.reference import __main__ as reference
from scripts.reference.cli_page import commands, parser
from scripts.reference.error_sites import scan


def test_the_checked_in_reference_pages_are_what_the_code_generates() -> None:
    assert reference.stale(REPO_ROOT) == [], "run: .venv/bin/python -m scripts.reference"


def _copy_sources(tmp_path: Path) -> Path:
    """A tree with the generator's inputs and the checked-in pages, to change one of them."""
    shutil.copytree(REPO_ROOT / "bridge", tmp_path / "bridge")
    (tmp_path / "editor-client").mkdir()
    shutil.copy(REPO_ROOT / "editor-client/package.json", tmp_path / "editor-client")
    shutil.copytree(REPO_ROOT / "docs/reference", tmp_path / "docs/reference")
    return tmp_path


def test_a_changed_setting_or_a_new_error_code_makes_its_page_stale(tmp_path: Path) -> None:
    root = _copy_sources(tmp_path)
    assert reference.stale(root) == []
    manifest_path = root / "editor-client/package.json"
    manifest = json.loads(manifest_path.read_text("utf-8"))
    manifest["contributes"]["configuration"]["properties"]["maestroBridge.port"]["default"] = 1
    manifest_path.write_text(json.dumps(manifest), "utf-8")
    assert reference.stale(root) == ["docs/reference/settings.md"]
    module = root / "bridge/http/teapot.py"
    module.write_text(
        "from bridge.core.errors import ApiError\n\n\n"
        "def teapot() -> ApiError:\n"
        '    return ApiError(418, "I am a teapot.", code="teapot")\n',
        "utf-8",
    )
    assert reference.stale(root) == ["docs/reference/settings.md", "docs/reference/errors.md"]


def test_every_setting_is_on_the_settings_page() -> None:
    manifest = json.loads((REPO_ROOT / "editor-client/package.json").read_text("utf-8"))
    page = (REPO_ROOT / "docs/reference/settings.md").read_text("utf-8")
    names = manifest["contributes"]["configuration"]["properties"]
    assert len(names) > 40
    for name in names:
        assert f"| `{name}` |" in page, name


def test_every_option_of_every_command_is_on_the_cli_page() -> None:
    page = (REPO_ROOT / "docs/reference/cli.md").read_text("utf-8")
    found = list(commands(parser()))
    names = {" ".join(words) for words, _, _ in found}
    assert {"lsp", "serve", "configure codex", "configure claude-code", "usage"} <= names
    assert "configure gemini" in names
    options = 0
    for words, _, command in found:
        section = page.split(f"## `maestro-bridge {' '.join(words)}`\n", 1)[1].split("\n## ")[0]
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                options += 1
                assert f"`{option}" in section, (words, option)
    assert options > 50


def test_the_error_scan_reads_every_way_the_bridge_names_a_code() -> None:
    result = scan(REPO_ROOT)
    assert result.unresolved == []
    codes = {(site.code, site.status) for site in result.sites}
    assert ("too_many_tools", 400) in codes  # a literal
    assert ("budget_exceeded", 429) in codes  # a module constant
    assert ("editor_timeout", 504) in codes  # a row of EDITOR_ERRORS
    assert ("method_not_allowed", 405) in codes  # a dict keyed by status
    assert ("host_not_allowed", 403) in codes  # a helper's positional `code`
    page = (REPO_ROOT / "docs/reference/errors.md").read_text("utf-8")
    for code, _ in codes:
        assert f"| `{code}` |" in page, code


def test_a_code_the_scan_cannot_read_is_reported(tmp_path: Path) -> None:
    (tmp_path / "bridge").mkdir()
    (tmp_path / "bridge/odd.py").write_text(
        "from bridge.core.errors import ApiError\n\n\n"
        "def odd(which: int) -> ApiError:\n"
        '    name = "a" if which else "b"\n'
        '    return ApiError(400, "Odd.", code=name)\n',
        "utf-8",
    )
    assert scan(tmp_path).unresolved == ["bridge/odd.py:6: code=name"]
