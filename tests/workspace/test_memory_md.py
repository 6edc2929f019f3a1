"""workspace/memory_md.py: which MEMORY.md is written, and how (atomically, mode kept).

Covers: workspaceDir (default, relative refused, missing, a file); MEMORY.md, else an existing
memory.md; a link inside the workspace is followed (the target replaced, the link kept); a link
leading outside is refused whether or not its target exists; a directory named MEMORY.md is
refused; reading a missing file; writing replaces the file (a new inode: atomic rename) with its
mode kept whatever the umask, a new file is 0600; no temp file is left behind.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.workspace.memory_md import NEW_FILE_MODE, read, target, workspace_dir, write


def test_workspace_dir(workspace: Path, tmp_path: Path) -> None:
    assert workspace_dir(None, workspace) == workspace
    assert workspace_dir(str(tmp_path), workspace) == tmp_path
    with pytest.raises(InvalidParamsError):
        workspace_dir("relative/dir", workspace)
    with pytest.raises(NotFoundError):
        workspace_dir(str(tmp_path / "missing"), workspace)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParamsError):
        workspace_dir(str(tmp_path / "file"), workspace)


def test_memory_md_or_an_existing_lowercase_one(workspace: Path) -> None:
    assert target(workspace).path == workspace / "MEMORY.md"
    (workspace / "memory.md").write_text("x")
    found = target(workspace)
    assert found.path == workspace / "memory.md"
    assert found.real == workspace / "memory.md"


def test_a_link_inside_the_workspace_is_followed(workspace: Path) -> None:
    (workspace / "notes").mkdir()
    (workspace / "notes" / "brief.md").write_text("old\n")
    (workspace / "MEMORY.md").symlink_to("notes/brief.md")
    found = target(workspace)
    write(found, "new\n", 0o644)
    assert (workspace / "MEMORY.md").is_symlink()
    assert (workspace / "notes" / "brief.md").read_text() == "new\n"


@pytest.mark.parametrize("exists", [True, False])
def test_a_link_leading_outside_is_refused(workspace: Path, tmp_path: Path,
                                           exists: bool) -> None:
    outside = tmp_path / "outside.md"
    if exists:
        outside.write_text("secret\n")
    (workspace / "MEMORY.md").symlink_to(outside)
    with pytest.raises(PathNotAllowedError) as info:
        target(workspace)
    assert info.value.data["target"] == str(outside)
    assert outside.exists() is exists  # untouched


def test_a_directory_is_refused_and_a_missing_workspace_is_not_found(workspace: Path,
                                                                     tmp_path: Path) -> None:
    (workspace / "MEMORY.md").mkdir()
    with pytest.raises(PathNotAllowedError):
        target(workspace)
    with pytest.raises(NotFoundError):
        target(tmp_path / "missing")


def test_reading_a_missing_file(workspace: Path) -> None:
    current = read(target(workspace))
    assert (current.text, current.exists, current.mode) == ("", False, NEW_FILE_MODE)


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o600])
def test_writing_keeps_the_mode_and_replaces_atomically(workspace: Path, mode: int) -> None:
    path = workspace / "MEMORY.md"
    path.write_text("old\n")
    path.chmod(mode)
    before = path.stat().st_ino
    old = os.umask(0o077)
    try:
        found = target(workspace)
        write(found, "new\n", read(found).mode)
    finally:
        os.umask(old)
    assert path.read_text() == "new\n"
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.stat().st_ino != before  # a new file renamed over the old one
    assert sorted(p.name for p in workspace.iterdir()) == ["MEMORY.md", "memory"]


def test_a_new_file_is_private(workspace: Path) -> None:
    found = target(workspace)
    write(found, "x\n", read(found).mode)
    assert stat.S_IMODE((workspace / "MEMORY.md").stat().st_mode) == 0o600
