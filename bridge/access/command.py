"""`maestro-bridge key`: where `serve`'s generated API key is, the key itself for a shell
(`export MAESTRO_BRIDGE_API_KEY="$(maestro-bridge key --show)"`), and `--rotate` to replace
it (docs/security.md). The VS Code extension keeps its own key (Rotate API Key)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bridge.access.key_file import (
    KeyFileError,
    key_file_path,
    load_or_create_key,
    read_key,
    rotate_key,
)


def add_key_command(sub: Any) -> None:
    key = sub.add_parser(
        "key",
        help="say where `serve --tools` keeps its API key; --show prints it, --rotate replaces it",
    )
    action = key.add_mutually_exclusive_group()
    action.add_argument(
        "--show",
        action="store_true",
        help="print the key itself (made first when there is none), for "
        '`export MAESTRO_BRIDGE_API_KEY="$(maestro-bridge key --show)"`',
    )
    action.add_argument(
        "--rotate",
        action="store_true",
        help="replace the key with a new one (restart `serve` to use it; agents whose "
        "configuration holds the key need `configure` again)",
    )


def run_key(args: argparse.Namespace) -> int:
    path = key_file_path()
    try:
        if args.show:
            print(load_or_create_key(path))
        elif args.rotate:
            rotate_key(path)
            print(f"Wrote a new API key to {path}: restart `maestro-bridge serve` to use it.")
        else:
            state = (
                "holds the key" if read_key(path) else "has no key yet (serve --tools makes one)"
            )
            print(f"{path} {state}.")
    except KeyFileError as exc:
        print(f"maestro-bridge: {exc}", file=sys.stderr)
        return 1
    return 0
