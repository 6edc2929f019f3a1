"""workspace/memory_files: reading MEMORY.md and memory/**/*.md for memory.get, and nothing else.

Covers: the allowed files and line slices (from/lines, past the end, the byte cap); refusals
(PathNotAllowedError) for ``../`` traversal, absolute paths outside, symlinks inside memory/ or
a MEMORY.md symlink pointing outside, non-.md files, directories, other files in the workspace,
with the outside file's bytes never returned; a missing path outside the allowed set is refused
rather than reported missing (existence outside is not revealed); a missing allowed path is
NotFoundError.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.workspace.memory_files import MAX_BYTES, read_slice, resolve

OUTSIDE_TEXT = "TOP-OUTSIDE_TEXT-OUTSIDE-BYTES"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace, with a secret Markdown file in it."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.md").write_text(f"# Secret\n{OUTSIDE_TEXT}\n")
    (path / "secret.txt").write_text(OUTSIDE_TEXT)
    return path


@pytest.fixture
def files(workspace: Path) -> Path:
    (workspace / "MEMORY.md").write_text("# Briefing\nline 2\nline 3\nline 4\n")
    (workspace / "memory" / "2026-02-20.md").write_text("a\nb\nc\n")
    (workspace / "memory" / "projects").mkdir()
    (workspace / "memory" / "projects" / "auth.md").write_text("# Auth\nretries\n")
    (workspace / "memory" / "notes.txt").write_text("not markdown\n")
    (workspace / "README.md").write_text("workspace readme\n")
    return workspace


def refused(workspace: Path, path: str) -> PathNotAllowedError:
    with pytest.raises(PathNotAllowedError) as info:
        read_slice(workspace, path)
    assert OUTSIDE_TEXT not in str(info.value)
    assert OUTSIDE_TEXT not in repr(info.value.data)
    return info.value


# -- what may be read ----------------------------------------------------------------------


def test_memory_md_whole(files: Path) -> None:
    part = read_slice(files, "MEMORY.md")
    assert part.path == "MEMORY.md"
    assert part.text == "# Briefing\nline 2\nline 3\nline 4\n"
    assert (part.start, part.count, part.total, part.truncated) == (1, 4, 4, False)


def test_lower_case_memory_md(workspace: Path) -> None:
    (workspace / "memory.md").write_text("lower\n")
    assert read_slice(workspace, "memory.md").text == "lower\n"


def test_files_under_memory_at_any_depth(files: Path) -> None:
    assert read_slice(files, "memory/2026-02-20.md").text == "a\nb\nc\n"
    part = read_slice(files, "memory/projects/auth.md")
    assert part.path == "memory/projects/auth.md"
    assert part.text == "# Auth\nretries\n"


def test_an_absolute_path_inside_is_allowed(files: Path) -> None:
    part = read_slice(files, str(files / "memory" / "2026-02-20.md"))
    assert part.path == "memory/2026-02-20.md"


def test_dot_segments_that_stay_inside_are_allowed(files: Path) -> None:
    assert read_slice(files, "memory/projects/../2026-02-20.md").path == "memory/2026-02-20.md"
    assert read_slice(files, "./memory/../MEMORY.md").path == "MEMORY.md"


def test_a_symlink_inside_memory_to_a_file_inside_is_followed(files: Path) -> None:
    (files / "memory" / "link.md").symlink_to(files / "memory" / "projects" / "auth.md")
    part = read_slice(files, "memory/link.md")
    assert part.text == "# Auth\nretries\n"
    assert part.path == "memory/projects/auth.md"


@pytest.mark.parametrize(("start", "count", "text", "returned"), [
    (1, None, "# Briefing\nline 2\nline 3\nline 4\n", 4),
    (2, None, "line 2\nline 3\nline 4\n", 3),
    (2, 2, "line 2\nline 3\n", 2),
    (4, 10, "line 4\n", 1),
    (5, None, "", 0),
    (100, 3, "", 0),
    (1, 1, "# Briefing\n", 1),
])
def test_slices(files: Path, start: int, count: int | None, text: str, returned: int) -> None:
    part = read_slice(files, "MEMORY.md", start, count)
    assert (part.text, part.start, part.count, part.total) == (text, start, returned, 4)


def test_a_last_line_without_newline(workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text("one\ntwo")
    part = read_slice(workspace, "MEMORY.md", 2)
    assert (part.text, part.total) == ("two", 2)


def test_a_large_file_is_cut_at_the_cap(workspace: Path) -> None:
    (workspace / "memory" / "big.md").write_bytes(b"x" * 99 + b"\n" * 1 + b"y" * (MAX_BYTES))
    part = read_slice(workspace, "memory/big.md")
    assert part.truncated
    assert len(part.text.encode()) == MAX_BYTES
    assert part.total == 2


# -- what is refused -----------------------------------------------------------------------


@pytest.mark.parametrize("path", [
    "../outside/secret.md",
    "memory/../../outside/secret.md",
    "memory/../../../../../../etc/passwd",
    "../outside/secret.txt",
])
def test_traversal_is_refused(files: Path, outside: Path, path: str) -> None:
    refused(files, path)


def test_absolute_paths_outside_are_refused(files: Path, outside: Path) -> None:
    refused(files, str(outside / "secret.md"))
    refused(files, "/etc/passwd")
    refused(files, "/")


def test_a_symlink_inside_memory_pointing_outside_is_refused(files: Path,
                                                             outside: Path) -> None:
    (files / "memory" / "escape.md").symlink_to(outside / "secret.md")
    refused(files, "memory/escape.md")
    (files / "memory" / "escape-dir").symlink_to(outside)
    refused(files, "memory/escape-dir/secret.md")


def test_a_memory_md_symlink_pointing_outside_is_refused(workspace: Path,
                                                         outside: Path) -> None:
    (workspace / "MEMORY.md").symlink_to(outside / "secret.md")
    refused(workspace, "MEMORY.md")
    refused(workspace, str(workspace / "MEMORY.md"))


def test_a_memory_directory_that_is_a_symlink_outside_is_refused(tmp_path: Path,
                                                                 outside: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "memory").symlink_to(outside)
    refused(ws, "memory/secret.md")


def test_a_symlink_to_a_non_markdown_file_is_refused(files: Path) -> None:
    (files / "memory" / "looks.md").symlink_to(files / "memory" / "notes.txt")
    refused(files, "memory/looks.md")


@pytest.mark.parametrize("path", [
    "memory/notes.txt",
    "README.md",
    "memory",
    "memory/",
    "memory/projects",
    ".",
    "sub/MEMORY.md",
    "MEMORY.md.bak",
])
def test_other_files_and_directories_are_refused(files: Path, path: str) -> None:
    refused(files, path)


def test_a_directory_named_like_markdown_is_refused(files: Path) -> None:
    (files / "memory" / "archive.md").mkdir()
    refused(files, "memory/archive.md")


@pytest.mark.parametrize("path", [
    "../outside/missing.md",
    "../nowhere/at/all.md",
    "/nonexistent/dir/file.md",
    "memory/missing.txt",
    "missing.md",
])
def test_a_missing_path_outside_the_allowed_set_is_refused_not_missing(
        files: Path, outside: Path, path: str) -> None:
    refused(files, path)


@pytest.mark.parametrize("path", ["memory/missing.md", "memory/deep/er/missing.md"])
def test_a_missing_allowed_path_is_not_found(files: Path, path: str) -> None:
    with pytest.raises(NotFoundError):
        read_slice(files, path)


def test_a_missing_memory_md_is_not_found(workspace: Path) -> None:
    with pytest.raises(NotFoundError):
        read_slice(workspace, "MEMORY.md")


def test_a_dangling_symlink_outside_is_refused(files: Path, outside: Path) -> None:
    (files / "memory" / "dangling.md").symlink_to(outside / "gone.md")
    refused(files, "memory/dangling.md")


@pytest.mark.parametrize("path", ["", "memory/a\x00.md"])
def test_an_empty_path_or_a_nul_is_invalid(files: Path, path: str) -> None:
    with pytest.raises(InvalidParamsError):
        resolve(files, path)


def test_a_symlinked_workspace_is_resolved(tmp_path: Path, files: Path) -> None:
    link = tmp_path / "ws-link"
    os.symlink(files, link)
    assert read_slice(link, "MEMORY.md").path == "MEMORY.md"
    assert read_slice(link, str(files / "MEMORY.md")).path == "MEMORY.md"
