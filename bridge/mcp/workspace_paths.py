"""Between the editor's file URIs and the paths agents use: relative to the workspace folder
that holds the file, with `/` on every platform (docs/protocol.md, "Language features")."""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlsplit

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class Folder:
    name: str
    uri: str

    @property
    def prefix(self) -> str:
        """The folder's URI path, decoded, ending with `/` (`/c:/work/` for `c%3A`)."""
        path = unquote(urlsplit(self.uri).path)
        return path if path.endswith("/") else path + "/"


class PathError(ValueError):
    """A path an agent gave that cannot name a file of the workspace."""


OUTSIDE_RULE = (
    "is outside the open workspace folders (after resolving `..` and symbolic links): the "
    "editor's language tools read only the workspace's files (the workspace boundary, "
    "docs/security.md)"
)


def _resolved(uri: str) -> str:
    """A file URI's path with `..` resolved and, where it names this machine's files (a file
    URI of this platform's shape), its symbolic links followed; `/c:/x` form, drive lower."""
    path = unquote(urlsplit(uri).path)
    drive = re.match(r"^/[A-Za-z]:", path) is not None
    if (os.name == "nt") == drive:  # this machine's own kind of path
        local = os.path.realpath(path[1:] if drive else path).replace("\\", "/")
        path = "/" + local if drive else local
    else:
        path = posixpath.normpath(path)
    return _comparable(path).rstrip("/") or "/"


def _comparable(path: str) -> str:
    # Windows drive letters come in either case (VS Code writes `c:`); nothing else differs.
    if re.match(r"^/[A-Za-z]:", path):
        return "/" + path[1].lower() + path[2:]
    return path


@dataclass(frozen=True)
class Workspace:
    folders: tuple[Folder, ...]

    @classmethod
    def from_editor(cls, answer: dict[str, Any]) -> Workspace:
        folders = []
        for raw in answer.get("folders") or []:
            if isinstance(raw, dict) and isinstance(raw.get("uri"), str):
                folders.append(Folder(str(raw.get("name") or ""), raw["uri"]))
        return cls(tuple(folders))

    def uri_of(self, path: str) -> str:
        """The file URI of a path an agent gave: relative to the (first) workspace folder, or
        to the folder it starts with by name when there are several; or absolute. PathError
        when it lies outside every workspace folder."""
        uri = self._uri_of(path)
        if not self.contains(uri):
            raise PathError(f"The path {path.strip()!r} {OUTSIDE_RULE}.")
        return uri

    def contains(self, uri: str) -> bool:
        """Whether a file URI lies in one of the workspace folders, once `..` and symbolic
        links are resolved (a link inside the workspace may point out of it)."""
        if urlsplit(uri).scheme != "file":
            return False
        target = _resolved(uri)
        for folder in self.folders:
            if urlsplit(folder.uri).scheme != "file":
                continue
            root = _resolved(folder.uri)
            if target == root or target.startswith(root.rstrip("/") + "/"):
                return True
        return False

    def _uri_of(self, path: str) -> str:
        path = path.strip()
        if not path:
            raise PathError("`path` is empty.")
        if path.startswith("file://"):
            return path
        if path.startswith("/") or _WINDOWS_DRIVE.match(path):
            absolute = path.replace("\\", "/")
            return "file://" + quote(absolute if absolute.startswith("/") else "/" + absolute)
        if not self.folders:
            raise PathError(
                f"The editor has no workspace folder open, so {path!r} cannot be found: "
                "give an absolute path."
            )
        relative = path.replace("\\", "/").removeprefix("./")
        folder = self.folders[0]
        head, _, rest = relative.partition("/")
        if len(self.folders) > 1 and rest:
            for candidate in self.folders:
                if candidate.name == head:
                    folder, relative = candidate, rest
                    break
        return folder.uri.rstrip("/") + "/" + quote(relative)

    def path_of(self, uri: str) -> str:
        """What an agent sees for a URI: the workspace-relative path (prefixed with the
        folder's name when there are several), else the file's absolute path."""
        parts = urlsplit(uri)
        if parts.scheme != "file":
            return uri
        path = unquote(parts.path)
        for folder in self.folders:
            prefix = folder.prefix
            if _comparable(path).startswith(_comparable(prefix)):
                relative = path[len(prefix) :]
                return f"{folder.name}/{relative}" if len(self.folders) > 1 else relative
        if re.match(r"^/[A-Za-z]:/", path):
            return path[1:]  # C:/work/x.py, not /C:/work/x.py
        return path
