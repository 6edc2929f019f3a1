"""Reading the workspace's Markdown memory files for ``memory.get``, never anything else.

Allowed: ``MEMORY.md`` (or ``memory.md``) at the workspace root, and ``*.md`` files under
``memory/``. A path is resolved with every symlink followed before it is checked, so neither
``../`` nor a link inside ``memory/`` that points elsewhere can reach another file's bytes; the
file is then opened by descriptor along that resolved path (``safe_open``), so a link or a FIFO
swapped in after the check is refused, not read. A
path outside the allowed set is refused whether or not it exists, so the answer does not reveal
which files exist outside.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.safe_open import open_beneath, read_capped
from zettelclaw.workspace.watch import Watch

ROOT_FILES = ("MEMORY.md", "memory.md")
MEMORY_DIR = "memory"
MAX_BYTES = 512 * 1024


@dataclass(frozen=True)
class FileSlice:
    path: str  # relative to the workspace
    text: str
    start: int  # first line returned, 1-based
    count: int  # lines returned
    total: int  # lines in the file
    truncated: bool  # cut at MAX_BYTES


def resolve(workspace: Path, path: str) -> tuple[Path, str]:
    """The real file for ``path`` and its workspace-relative name, or an error."""
    if not path or "\x00" in path:
        raise InvalidParamsError("path must be a non-empty file path")
    root = Path(os.path.realpath(workspace))
    candidate = Path(path) if os.path.isabs(path) else root / path
    refused = PathNotAllowedError(
        f"{path!r} is not one of the workspace's memory files (MEMORY.md, memory/**/*.md)",
        {"path": path, "workspace": str(workspace)})
    try:
        real = Path(os.path.realpath(candidate))
        if not _allowed(root, real):
            raise refused
        st = os.stat(real)
    except FileNotFoundError:
        raise NotFoundError(f"{path!r} does not exist in the workspace", {"path": path}
                            ) from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise InvalidParamsError(f"Invalid params: path is too long: {path[:60]!r}...",
                                     [{"field": "path", "message": "file name too long",
                                       "type": "value_error"}]) from None
        # e.g. a link swapped for a file while it was being resolved (EINVAL)
        raise NotFoundError(f"{path!r} changed while it was being resolved; try again",
                            {"path": path}) from None
    if stat.S_ISDIR(st.st_mode):  # a directory is never a memory file
        raise refused
    if not stat.S_ISREG(st.st_mode):
        raise PathNotAllowedError(f"{path!r} is not a regular file", {"path": path})
    return real, str(real.relative_to(root))


def open_real(workspace: Path, real: Path) -> int:
    """A descriptor of ``real`` (a path with its links resolved, inside the workspace), opened
    without following any link on the way (``safe_open``): if a link or a FIFO took its place
    since it was checked, the open fails instead of reading something else."""
    root = Path(os.path.realpath(workspace))
    return open_beneath(root, real.relative_to(root))


def _allowed(root: Path, real: Path) -> bool:
    """The one rule, for reading and for indexing: ``real`` (symlinks resolved) is MEMORY.md
    at the root or a .md file under memory/."""
    if real.parent == root and real.name in ROOT_FILES:
        return True
    return real.suffix == ".md" and real.is_relative_to(root / MEMORY_DIR)


def list_files(workspace: Path, watch: Watch | None = None) -> list[tuple[str, Path]]:
    """Every memory file of the workspace: (path relative to the workspace, real path).

    Symlinks are followed only to files the rule allows; the walk does not enter linked
    directories, so a link cannot make it wander the disk. With ``watch``, each directory is
    watched before it is listed, and a symlink met on the way makes the watch blind (an edit at
    a link's target raises no event in the workspace).
    """
    root = Path(os.path.realpath(workspace))
    if watch is not None:
        watch.watch(str(root))
    found: dict[Path, str] = {}
    candidates = [root / name for name in ROOT_FILES]
    memory = root / MEMORY_DIR
    # Under a real root and a memory/ that is no link, the walk's paths are real already: only
    # a link needs resolving (realpath costs an lstat a path component; this runs per search).
    linked_dir = os.path.islink(memory)
    candidates += [Path(path) for path in _markdown_under(str(memory), watch)]
    for candidate in candidates:
        try:
            st = os.lstat(candidate)
        except FileNotFoundError:
            continue
        resolve = linked_dir or stat.S_ISLNK(st.st_mode)
        if resolve and watch is not None:
            watch.blind()
        try:
            real = Path(os.path.realpath(candidate)) if resolve else candidate
        except OSError:  # a link swapped for a file while it was being resolved (EINVAL)
            continue
        if real not in found and (real.is_file() if resolve else stat.S_ISREG(st.st_mode)) \
                and _allowed(root, real):
            found[real] = str(candidate.relative_to(root))
    return [(relative, real) for real, relative in found.items()]


def is_memory_change(directory: str, name: str, is_dir: bool, root: str) -> bool:
    """Whether a change to ``name`` in ``directory`` can change the memory files: at the
    workspace root only MEMORY.md and memory/ count (the root holds the agent's other files)."""
    if directory == root:
        return name in ROOT_FILES or name == MEMORY_DIR
    return is_dir or name.endswith(".md")


def _markdown_under(top: str, watch: Watch | None) -> list[str]:
    """The .md names under ``top`` (as ``os.walk`` would find them: links to directories are
    not entered), sorted by directory then name; each directory watched before it is listed."""
    if watch is not None:
        watch.watch(top)
    try:
        with os.scandir(top) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:  # missing, not a directory, or unreadable: as os.walk, nothing from here
        return []
    files: list[str] = []
    folders: list[str] = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                folders.append(entry.path)
        elif entry.name.endswith(".md"):
            files.append(entry.path)
    for folder in folders:
        files += _markdown_under(folder, watch)
    return files


def read_slice(workspace: Path, path: str, start: int = 1, count: int | None = None) -> FileSlice:
    real, relative = resolve(workspace, path)
    fd = open_real(workspace, real)  # what resolve() checked, or an error: never another file
    try:
        data = read_capped(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    truncated = len(data) > MAX_BYTES
    text = data[:MAX_BYTES].decode("utf-8", "replace")
    all_lines = text.splitlines(keepends=True)
    chosen = all_lines[start - 1 : None if count is None else start - 1 + count]
    return FileSlice(relative, "".join(chosen), start, len(chosen), len(all_lines), truncated)
