"""Which file the briefing writes, reading it, and replacing it atomically with its mode kept.

Only ``<workspace>/MEMORY.md`` is ever written (``memory.md`` when only that one exists). A
MEMORY.md that is a symlink is followed only when its target stays inside the workspace (the
target is replaced, the link kept); a link leading outside is refused, whether or not its target
exists. Bytes that are not UTF-8 survive a rewrite unchanged (surrogate escapes).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.errors import InvalidParamsError, NotFoundError, PathNotAllowedError
from zettelclaw.files import atomic_write_bytes

NAMES = ("MEMORY.md", "memory.md")
NEW_FILE_MODE = 0o600  # a new MEMORY.md holds private memory, like the log
MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Target:
    path: Path  # as the workspace names it: <workspace>/MEMORY.md
    real: Path  # the file written (the link's target when MEMORY.md is a link)


@dataclass(frozen=True)
class Current:
    text: str
    exists: bool
    mode: int


def workspace_dir(value: str | None, default: Path) -> Path:
    """The workspace of a call: ``default`` (the sidecar's), or an absolute existing directory."""
    if value is None:
        return default
    if "\x00" in value or not os.path.isabs(value):
        raise InvalidParamsError("workspaceDir must be an absolute path",
                                 [{"field": "workspaceDir", "message": "not an absolute path",
                                   "type": "value_error"}])
    path = Path(value)
    if not path.exists():
        raise NotFoundError(f"no directory {value}", {"path": value})
    if not path.is_dir():
        raise InvalidParamsError(f"{value} is not a directory",
                                 [{"field": "workspaceDir", "message": "not a directory",
                                   "type": "value_error"}])
    return path


def target(workspace: Path) -> Target:
    if not workspace.is_dir():
        raise NotFoundError(f"the workspace {workspace} does not exist", {"path": str(workspace)})
    name = next((n for n in NAMES if os.path.lexists(workspace / n)), NAMES[0])
    path = workspace / name
    root = Path(os.path.realpath(workspace))
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root) or real == root:
        raise PathNotAllowedError(f"{path} is a link that leads outside the workspace "
                                  f"({real}); the briefing writes only inside it",
                                  {"path": str(path), "target": str(real)})
    if real.exists() and not real.is_file():
        raise PathNotAllowedError(f"{path} is not a regular file", {"path": str(path)})
    return Target(path, real)


def read(found: Target) -> Current:
    try:
        with found.real.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
            mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
    except FileNotFoundError:
        return Current("", False, NEW_FILE_MODE)
    if len(data) > MAX_BYTES:
        raise PathNotAllowedError(f"{found.path} is over {MAX_BYTES >> 20} MiB; not a briefing "
                                  "file this tool will rewrite", {"path": str(found.path)})
    return Current(data.decode("utf-8", "surrogateescape"), True, mode)


def write(found: Target, text: str, mode: int) -> None:
    atomic_write_bytes(found.real, text.encode("utf-8", "surrogateescape"), mode=mode)
