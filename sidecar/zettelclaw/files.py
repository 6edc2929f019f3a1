"""Durable file primitives: atomic replacement and fsynced appends.

Every JSON state file is replaced atomically (temp file in the same directory, fsync, rename,
fsync of the directory) so that a crash leaves either the old or the new file, never half of one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson


def fsync_dir(directory: Path) -> None:
    """Make a rename or a file creation in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600, *,
                       durable: bool = True) -> None:
    """Replace ``path`` with ``data``: temp file, fsync, rename, fsync the directory.

    The new file gets exactly ``mode``, whatever the umask. ``durable=False`` leaves out both
    fsyncs, for a file whose loss or emptiness after a crash its reader takes as "not known":
    readers still see the old content or the new, never a part.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:  # a failed write, fsync or rename leaves no temp file behind
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_json(path: Path, value: Any) -> None:
    atomic_write_bytes(path, orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")


def write_all(fd: int, data: bytes) -> None:
    """os.write may write less than asked (signals, quotas): loop until all of it is out."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def ends_with_newline(fd: int) -> bool:
    """Whether the file open at ``fd`` is empty or ends in a newline (else its last line is torn
    or unterminated, and an append must close it first)."""
    size = os.fstat(fd).st_size
    return size == 0 or os.pread(fd, 1, size - 1) == b"\n"


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, or None when the file does not exist.

    Raises ValueError naming the file when it holds something else than a JSON object.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(value, dict):
        raise ValueError(f"{path}: expected a JSON object, found {type(value).__name__}")
    return value
