"""`serve`'s key: `--api-key` (or `$MAESTRO_BRIDGE_API_KEY`) when given; else, with `--tools`,
the key file's (created at first use) unless `--no-key` turns it off on purpose."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from bridge.access.key_file import KeyFileError, key_file_path, load_or_create_key

NO_KEY_WARNING = (
    "WARNING: --no-key: the editor's tools are served without an API key; any process on "
    "this machine can list and call them at /mcp."
)


class ServeKeyError(Exception):
    """The flags or the key file do not allow a start (a message for the user)."""


@dataclass(frozen=True)
class ServeKey:
    key: str | None
    file: Path | None  # where the key is kept, when it came from the key file
    warning: str | None = None


def settle_serve_key(args: argparse.Namespace) -> ServeKey:
    """The key `serve` requires, and sets it on `args.api_key`."""
    if args.no_key and args.api_key:
        raise ServeKeyError(
            "--no-key turns off the key --api-key / $MAESTRO_BRIDGE_API_KEY sets: give one"
        )
    if args.api_key or not args.tools:
        return ServeKey(args.api_key, None)
    if args.no_key:
        return ServeKey(None, None, NO_KEY_WARNING)
    path = key_file_path()
    try:
        args.api_key = load_or_create_key(path)
    except KeyFileError as exc:
        raise ServeKeyError(f"{exc}; give a key with --api-key, or --no-key") from None
    return ServeKey(args.api_key, path)


def key_lines(found: ServeKey) -> list[str]:
    """What the banner says about the key (never the key itself)."""
    if found.warning:
        return [found.warning]
    if found.file is not None:
        return [
            f"API key (required on every request): in {found.file}",
            '  export MAESTRO_BRIDGE_API_KEY="$(maestro-bridge key --show)"   '
            "(agents read it from there; `maestro-bridge key --rotate` replaces it)",
        ]
    return []
