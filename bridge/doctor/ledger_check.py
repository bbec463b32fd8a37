"""The usage database this machine's bridges write (`serve`'s default; VS Code keeps its own
in the extension's storage): there and writable, or its folder can be made."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path

from bridge.doctor.report import Check
from bridge.usage.location import default_usage_path


def ledger_check(environ: Mapping[str, str] | None = None) -> Check:
    path = default_usage_path(environ)
    if path.exists():
        try:
            connection = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=2.0)
            try:
                connection.execute("BEGIN IMMEDIATE")  # takes the write lock, writes nothing
                connection.rollback()
            finally:
                connection.close()
        except sqlite3.Error as exc:
            return Check(
                "usage database",
                "fail",
                f"{path} cannot be written ({exc})",
                "check its owner and permissions, or start serve with --usage-db PATH",
            )
        return Check("usage database", "ok", f"{path} is writable")
    folder = _existing_parent(path.parent)
    if os.access(folder, os.W_OK):
        return Check("usage database", "ok", f"{path} will be made on first use")
    return Check(
        "usage database",
        "fail",
        f"{folder} is not writable: {path} cannot be made",
        "fix the folder's permissions, or start serve with --usage-db PATH",
    )


def _existing_parent(folder: Path) -> Path:
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder
