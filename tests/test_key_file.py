"""The generated API key's file (bridge/access/key_file.py) and the order in which commands
find a key (bridge/access/key_lookup.py): real files in a temporary state folder."""

from __future__ import annotations

import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from bridge.access import key_file
from bridge.access.key_file import key_file_path, load_or_create_key, read_key, rotate_key
from bridge.access.key_lookup import API_KEY_ENV, find_api_key
from bridge.cli import main

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


def test_the_key_file_is_in_each_platforms_state_folder() -> None:
    linux = {"HOME": "/home/me", "XDG_STATE_HOME": "/state"}
    assert key_file_path(linux, "linux") == Path("/state/maestro-bridge/api-key")
    assert key_file_path({"HOME": "/home/me"}, "linux") == Path(
        "/home/me/.local/state/maestro-bridge/api-key"
    )
    mac = {"HOME": "/Users/me"}
    assert key_file_path(mac, "darwin") == Path(
        "/Users/me/Library/Application Support/maestro-bridge/api-key"
    )
    windows = {"LOCALAPPDATA": "C:\\Users\\me\\AppData\\Local", "USERPROFILE": "C:\\Users\\me"}
    assert (
        str(key_file_path(windows, "win32"))
        .replace("\\", "/")
        .endswith("AppData/Local/maestro-bridge/api-key")
    )


@POSIX_ONLY
def test_created_once_owner_only_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "state" / "maestro-bridge" / "api-key"
    assert read_key(path) is None
    key = load_or_create_key(path)
    assert len(key) >= 40 and key.isprintable()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_or_create_key(path) == key == read_key(path)
    assert [p.name for p in path.parent.iterdir()] == ["api-key"]  # no temporary left


@POSIX_ONLY
def test_a_key_file_others_can_read_is_made_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "api-key"
    path.write_text("typed-by-hand\n")
    os.chmod(path, 0o644)
    assert read_key(path) == "typed-by-hand"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_rotating_replaces_the_key(tmp_path: Path) -> None:
    path = tmp_path / "api-key"
    old = load_or_create_key(path)
    new = rotate_key(path)
    assert new != old and read_key(path) == new


def test_bridges_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "api-key"
    keys: list[str] = []
    start = threading.Barrier(8)

    def create() -> None:
        start.wait()
        keys.append(load_or_create_key(path))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(keys)) == 1 and keys[0] == read_key(path)


def test_an_unwritable_state_folder_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(key_file.KeyFileError, match=r"cannot (read|write) the API key file"):
        load_or_create_key(blocker / "api-key")


def test_a_key_is_found_flag_then_env_then_file(tmp_path: Path) -> None:
    path = tmp_path / "api-key"
    env = {API_KEY_ENV: "from-env"}
    assert find_api_key(None, {}, path) is None  # never created by a look-up
    assert not path.exists()
    stored = load_or_create_key(path)
    assert find_api_key("from-flag", env, path).key == "from-flag"  # type: ignore[union-attr]
    assert find_api_key(None, env, path).origin == "env"  # type: ignore[union-attr]
    found = find_api_key(None, {}, path)
    assert found is not None and (found.key, found.origin, found.file) == (stored, "file", path)


def test_the_key_command_says_where_shows_and_rotates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every platform's state folder inside tmp_path.
    for name in ("XDG_STATE_HOME", "HOME", "USERPROFILE", "LOCALAPPDATA"):
        monkeypatch.setenv(name, str(tmp_path))
    path = key_file_path()
    assert path.is_relative_to(tmp_path)
    assert main(["key"]) == 0
    assert capsys.readouterr().out == f"{path} has no key yet (serve --tools makes one).\n"
    assert main(["key", "--show"]) == 0
    shown = capsys.readouterr().out.strip()
    assert shown == read_key(path)
    assert main(["key", "--rotate"]) == 0
    assert str(path) in capsys.readouterr().out
    assert read_key(path) not in (None, shown)
    assert main(["key"]) == 0
    assert "holds the key" in capsys.readouterr().out
