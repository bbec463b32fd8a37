"""Paths between agents and the editor (bridge/mcp/workspace_paths.py): workspace-relative with
`/` for agents, file URIs for the editor, on each platform's shape of URI."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.mcp.workspace_paths import Folder, PathError, Workspace

POSIX = Workspace((Folder("proj", "file:///home/me/proj"),))
# VS Code writes a Windows drive as `file:///c%3A/...` (lower case, the colon escaped).
WINDOWS = Workspace((Folder("proj", "file:///c%3A/Users/me/proj"),))
TWO = Workspace((Folder("api", "file:///w/api"), Folder("web", "file:///w/web")))


def test_a_relative_path_is_a_uri_in_the_workspace_folder() -> None:
    assert POSIX.uri_of("src/app.py") == "file:///home/me/proj/src/app.py"
    assert POSIX.uri_of("./src/a b.py") == "file:///home/me/proj/src/a%20b.py"
    assert WINDOWS.uri_of("src\\app.py") == "file:///c%3A/Users/me/proj/src/app.py"


def test_an_absolute_path_in_the_workspace_is_its_own_uri() -> None:
    assert POSIX.uri_of("/home/me/proj/a.py") == "file:///home/me/proj/a.py"
    assert WINDOWS.uri_of("C:\\Users\\me\\proj\\x.py") == "file:///C%3A/Users/me/proj/x.py"
    assert POSIX.uri_of("file:///home/me/proj/y.py") == "file:///home/me/proj/y.py"


@pytest.mark.parametrize(
    ("workspace", "path"),
    [
        (POSIX, "/etc/hosts"),
        (POSIX, "file:///etc/passwd"),
        (POSIX, "../other/secret.txt"),
        (POSIX, "src/../../proj-evil/x.py"),  # a sibling whose name starts like the folder's
        (POSIX, "/home/me/proj/../.ssh/id_ed25519"),
        (WINDOWS, "C:\\Users\\me\\x.py"),
        (WINDOWS, "..\\..\\Windows\\win.ini"),
        (TWO, "web/../../etc/x"),
        (Workspace(()), "/etc/hosts"),  # no folder open: no file at all
    ],
)
def test_a_path_outside_the_workspace_is_refused_naming_the_rule(
    workspace: Workspace, path: str
) -> None:
    with pytest.raises(PathError, match="outside the open workspace folders"):
        workspace.uri_of(path)


def test_a_symbolic_link_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    project, outside = tmp_path / "proj", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (project / "inside.txt").write_text("fine")
    (project / "link").symlink_to(outside, target_is_directory=True)
    workspace = Workspace((Folder("proj", project.as_uri()),))
    assert workspace.uri_of("inside.txt") == (project / "inside.txt").as_uri()
    with pytest.raises(PathError, match="symbolic links"):
        workspace.uri_of("link/secret.txt")


def test_a_workspace_folder_reached_through_a_link_still_holds_its_files(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    workspace = Workspace((Folder("proj", (tmp_path / "alias").as_uri()),))
    assert workspace.uri_of(str(real / "a.py")) == (real / "a.py").as_uri()
    assert workspace.uri_of("a.py") == (tmp_path / "alias" / "a.py").as_uri()


def test_a_uri_is_shown_relative_to_its_folder() -> None:
    assert POSIX.path_of("file:///home/me/proj/src/a%20b.py") == "src/a b.py"
    assert POSIX.path_of("file:///elsewhere/x.py") == "/elsewhere/x.py"
    # Either case of drive letter, escaped colon or not: the same folder.
    assert WINDOWS.path_of("file:///C:/Users/me/proj/src/app.py") == "src/app.py"
    assert WINDOWS.path_of("file:///c%3A/Users/me/proj/src/app.py") == "src/app.py"
    assert WINDOWS.path_of("file:///d%3A/other/x.py") == "d:/other/x.py"
    assert POSIX.path_of("untitled:Untitled-1") == "untitled:Untitled-1"


def test_several_folders_are_told_apart_by_name() -> None:
    assert TWO.uri_of("web/src/index.ts") == "file:///w/web/src/index.ts"
    assert TWO.uri_of("src/main.py") == "file:///w/api/src/main.py"  # the first folder
    assert TWO.path_of("file:///w/web/src/index.ts") == "web/src/index.ts"
    # A folder whose name is a prefix of another's path is not mistaken for it.
    assert TWO.path_of("file:///w/webapp/x.ts") == "/w/webapp/x.ts"


def test_no_folder_or_no_path_is_a_clear_error() -> None:
    with pytest.raises(PathError, match="no workspace folder"):
        Workspace(()).uri_of("src/app.py")
    with pytest.raises(PathError, match="empty"):
        POSIX.uri_of("  ")


def test_the_editor_answer_is_read_leniently() -> None:
    workspace = Workspace.from_editor(
        {"folders": [{"name": "a", "uri": "file:///a"}, {"name": "broken"}, "junk"]}
    )
    assert workspace.folders == (Folder("a", "file:///a"),)
