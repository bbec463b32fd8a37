"""Every module imports on Windows and macOS: checked here by importing each one again with
`sys.platform` set to theirs and the modules they lack made unimportable.

In a fresh interpreter: everything is imported once as it is (the standard library and the
dependencies load for this machine, which they must), then our modules are forgotten,
`sys.platform` is patched, the POSIX-only modules are hidden (for "win32") and each of our
modules is imported again. A module that imports `fcntl`, `resource`, `termios`... at import
time without a guard, or reads a Linux-only name at import time, fails here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

# Not on Windows (POSIX), or on Linux only; `select.epoll` is Linux's alone too.
POSIX_ONLY = ["fcntl", "resource", "termios", "tty", "pty", "pwd", "grp", "posix", "syslog"]
LINUX_ONLY = ["spwd", "ossaudiodev"]

PACKAGES = ["bridge", "lsp", "headless_editor", "bench"]

_CHECK = r"""
import importlib, importlib.abc, pkgutil, sys

platform, hidden, packages = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(",")

def all_modules():
    for package in packages:
        module = importlib.import_module(package)
        yield package
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if not info.name.endswith(".__main__"):  # importing one runs the program
                yield info.name

names = sorted(set(all_modules()))
for name in names:  # this machine's way first: dependencies loaded as they must be
    importlib.import_module(name)
for name in list(sys.modules):
    if name.split(".")[0] in packages:
        del sys.modules[name]

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in hidden:
            raise ModuleNotFoundError(f"No module named {name!r} on {platform}", name=name)
        return None

saved = {name: sys.modules.pop(name) for name in list(sys.modules) if name in hidden}
sys.meta_path.insert(0, Hide())
sys.platform = platform
failed = []
for name in names:
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}: {exc}")
print(len(names))
print("\n".join(failed))
"""


@pytest.mark.parametrize(
    ("platform", "hidden"),
    [("win32", POSIX_ONLY + LINUX_ONLY), ("darwin", LINUX_ONLY)],
)
def test_every_module_imports_on(platform: str, hidden: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _CHECK, platform, ",".join(hidden), ",".join(PACKAGES)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    count, _, failed = result.stdout.partition("\n")
    assert int(count) > 100, result.stdout  # every module was found
    assert not failed.strip(), f"modules that do not import on {platform}:\n{failed}"


def test_the_check_catches_an_unguarded_posix_import(tmp_path: Path) -> None:
    """The check itself: a package importing fcntl at import time fails it on win32 only."""
    package = tmp_path / "posix_only_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bad.py").write_text("import fcntl\n")
    (package / "fine.py").write_text("def f():\n    import fcntl\n    return fcntl\n")
    outcomes = {}
    for platform, hidden in (("win32", POSIX_ONLY), ("darwin", LINUX_ONLY)):
        result = subprocess.run(
            [sys.executable, "-c", _CHECK, platform, ",".join(hidden), "posix_only_pkg"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        outcomes[platform] = result.stdout.partition("\n")[2].strip()
    assert outcomes["win32"].startswith("posix_only_pkg.bad: ModuleNotFoundError"), outcomes
    assert "posix_only_pkg.fine" not in outcomes["win32"]
    assert outcomes["darwin"] == ""
