"""`configure`'s files in each platform's places, and a Windows user's line endings.

Codex, Claude Code and Gemini CLI keep their files under the home folder their runtime
reports: %USERPROFILE% on Windows (not %HOME%, which Git Bash and MSYS set), $HOME elsewhere.
The Windows choice runs here on Linux by asking for it (the `platform` argument), and the
whole `configure` command once with `sys.platform` itself set to "win32".
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from configure_runs import run_configure
from conftest import REPO_ROOT, BridgeServer

from bridge.configure.claude_settings import claude_config_dir
from bridge.configure.codex_toml import codex_home
from bridge.configure.config_file import in_line_endings_of, write_config
from bridge.configure.gemini_settings import gemini_dir
from bridge.user_home import user_home

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def test_the_home_folder_per_platform(tmp_path: Path) -> None:
    profile, msys_home = tmp_path / "Users" / "ana", tmp_path / "msys" / "ana"
    windows = {"USERPROFILE": str(profile), "HOME": str(msys_home)}
    assert user_home(windows, "win32") == profile
    assert user_home({"HOMEDRIVE": "C:", "HOMEPATH": "/Users/bo"}, "win32") == Path("C:/Users/bo")
    assert user_home(windows, "darwin") == msys_home
    assert user_home(windows, "linux") == msys_home
    assert user_home({}, "win32") == Path.home()
    assert user_home({}, "darwin") == Path.home()


def test_each_clients_folder_on_windows(tmp_path: Path) -> None:
    profile = tmp_path / "Users" / "ana"
    environ = {"USERPROFILE": str(profile), "HOME": str(tmp_path / "elsewhere")}
    assert codex_home(environ, "win32") == profile / ".codex"
    assert claude_config_dir(environ, "win32") == profile / ".claude"
    assert gemini_dir(environ, "win32") == profile / ".gemini"
    # The clients' own variables still come first, on every platform.
    assert codex_home({**environ, "CODEX_HOME": str(tmp_path)}, "win32") == tmp_path.resolve()
    assert claude_config_dir({**environ, "CLAUDE_CONFIG_DIR": str(tmp_path)}, "win32") == tmp_path
    assert gemini_dir({**environ, "GEMINI_CLI_HOME": str(tmp_path)}, "win32") == (
        tmp_path / ".gemini"
    )


def test_each_clients_folder_on_macos_and_linux(tmp_path: Path) -> None:
    environ = {"HOME": str(tmp_path), "USERPROFILE": str(tmp_path / "not-this")}
    for platform in ("darwin", "linux"):
        assert codex_home(environ, platform) == tmp_path / ".codex"
        assert claude_config_dir(environ, platform) == tmp_path / ".claude"
        assert gemini_dir(environ, platform) == tmp_path / ".gemini"


def test_line_endings_follow_the_file_replaced() -> None:
    assert in_line_endings_of(b"a = 1\r\nb = 2\r\n", "a = 1\nc = 3\n") == "a = 1\r\nc = 3\r\n"
    assert in_line_endings_of(b"a = 1\nb = 2\n", "a = 1\nc = 3\n") == "a = 1\nc = 3\n"
    # A stray CR LF in a file of LF lines does not convert the whole file.
    assert in_line_endings_of(b"a\nb\nc\r\nd\n", "x\ny\n") == "x\ny\n"


def test_write_config_keeps_crlf(tmp_path: Path) -> None:
    config = tmp_path / "settings.json"
    config.write_bytes(b'{\r\n  "a": 1\r\n}\r\n')
    write_config(config, '{\n  "a": 1,\n  "b": 2\n}\n', datetime(2025, 1, 2, 3, 4, 5))
    assert config.read_bytes() == b'{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n'
    fresh = tmp_path / "new.json"
    write_config(fresh, "{\n}\n", datetime(2025, 1, 2, 3, 4, 5))
    assert fresh.read_bytes() == b"{\n}\n"  # a new file: LF, what the clients write too


# --------------------------------------------------------------------------- the commands


_AS_WINDOWS = """
import asyncio, sys  # loaded for this machine first: asyncio would load Windows' loop
sys.platform = "win32"
from bridge.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    ("target", "folder", "name"),
    [
        ("codex", ".codex", "config.toml"),
        ("claude-code", ".claude", "settings.json"),
        ("gemini", ".gemini", "settings.json"),
    ],
)
def test_configure_writes_into_the_windows_profile(
    bridge_server: BridgeServer, tmp_path: Path, target: str, folder: str, name: str
) -> None:
    """The whole command, as Windows runs it: %USERPROFILE%, never %HOME%."""
    profile, msys_home = tmp_path / "profile", tmp_path / "msys-home"
    profile.mkdir()
    msys_home.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME")
    }
    env.update(USERPROFILE=str(profile), HOME=str(msys_home))
    env.pop("MAESTRO_BRIDGE_API_KEY", None)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            _AS_WINDOWS,
            "configure",
            target,
            "--base-url",
            bridge_server.base_url,
            "--model",
            "sim-echo",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (profile / folder / name).is_file(), result.stdout
    assert not list(msys_home.iterdir())


def test_configure_codex_keeps_a_crlf_config(bridge_server: BridgeServer, tmp_path: Path) -> None:
    """A config.toml saved by a Windows editor: merged, and still CRLF throughout."""
    home = tmp_path / "codex-home"
    home.mkdir()
    config = home / "config.toml"
    config.write_bytes(b'# mine\r\nmodel = "o3"\r\n\r\n[profiles.fast]\r\nmodel = "o4-mini"\r\n')
    env = {**os.environ, "CODEX_HOME": str(home)}
    env.pop("MAESTRO_BRIDGE_API_KEY", None)
    result = run_configure(
        "codex", ["--base-url", bridge_server.base_url, "--model", "sim-echo"], env, REPO_ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = config.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 5
    parsed = tomllib.loads(data.decode())
    assert parsed["model_provider"] == "maestro"
    assert parsed["profiles"]["fast"]["model"] == "o4-mini"
    assert parsed["model_providers"]["maestro"]["base_url"] == bridge_server.base_url
    assert data.startswith(b"# mine\r\n")
