"""The bridge's generated API key: one file, `api-key`, in the user's state folder
(bridge/access/state_folder.py), readable by its owner only.

`serve --tools` without `--api-key` / `$MAESTRO_BRIDGE_API_KEY` creates it at first use and
reads it ever after, so agents configured once keep working across restarts; `maestro-bridge
key --rotate` replaces it. POSIX: the folder is 0700 and the file 0600 (a file found wider is
narrowed). Windows: `%LOCALAPPDATA%` is the user's own profile folder, whose inherited ACL
lets only the user, SYSTEM and Administrators in; nothing more is set.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from bridge.access.state_folder import state_folder

log = logging.getLogger(__name__)

KEY_FILE_NAME = "api-key"
KEY_BYTES = 32  # 256 random bits
OWNER_ONLY = 0o600
FOLDER_OWNER_ONLY = 0o700


class KeyFileError(OSError):
    """The key file can be neither read nor created (a message for the user)."""


def key_file_path(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """`<state folder>/api-key`."""
    return state_folder(environ, platform) / KEY_FILE_NAME


def new_key() -> str:
    """A fresh random key (URL-safe text, fits a header and an env var)."""
    # Imported here: `secrets` brings hashlib (OpenSSL's libcrypto), which `serve`'s process
    # loads only when it makes a key (tests/test_start_imports.py).
    import secrets

    return secrets.token_urlsafe(KEY_BYTES)


def read_key(path: Path | None = None) -> str | None:
    """The key in the file, or None when there is no file (or it is empty)."""
    path = path or key_file_path()
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeyFileError(f"cannot read the API key file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise KeyFileError(f"the API key file {path} is not UTF-8 text") from None
    if text and sys.platform != "win32":
        _narrow(path)
    return text or None


def load_or_create_key(path: Path | None = None) -> str:
    """The key in the file, created first (owner-only) when there is none. Two bridges
    starting at once agree on one key: the file appears whole or not at all."""
    path = path or key_file_path()
    found = read_key(path)
    if found:
        return found
    key = new_key()
    if _publish(path, key, replace=False):
        log.info("Created the API key file %s", path)
        return key
    return read_key(path) or key  # another bridge created it first: its key wins


def rotate_key(path: Path | None = None) -> str:
    """A new key in the file, replacing the old one (which stops working once the bridges
    using it restart with the new one)."""
    path = path or key_file_path()
    key = new_key()
    _publish(path, key, replace=True)
    log.info("Wrote a new API key to %s", path)
    return key


def _publish(path: Path, key: str, *, replace: bool) -> bool:
    """Writes `key` to a private temporary file, then puts it in place: linked (fails when
    the file exists: False) or, with `replace`, renamed over the old file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=FOLDER_OWNER_ONLY)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OWNER_ONLY)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(key + "\n")
            if replace:
                os.replace(temporary, path)
                return True
            try:
                os.link(temporary, path)
            except FileExistsError:
                return False
            except OSError:  # a file system without hard links (FAT): not atomic, still owner-only
                if path.exists():
                    return False
                os.replace(temporary, path)
            return True
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
    except OSError as exc:
        raise KeyFileError(f"cannot write the API key file {path}: {exc.strerror or exc}") from None


def _narrow(path: Path) -> None:
    """A key file others can read (copied in, or made by hand) is made owner-only again."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            os.chmod(path, OWNER_ONLY)
            log.warning("The API key file %s was readable by others: made it owner-only", path)
    except OSError as exc:
        log.warning("Could not check the permissions of %s: %s", path, exc)
