"""Durable file primitives: atomic replacement and fsynced appends.

Every JSON state file is replaced atomically (temp file in the same directory, fsync, rename,
fsync of the directory) so that a crash leaves either the old or the new file, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
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


_TEMP = re.compile(r"^\..+\.(\d+)\.tmp$")  # atomic_write_bytes's temp files: .<name>.<pid>.tmp

# when this process started, by the clock files are stamped with: a temp file of this pid older
# than that was left by an earlier process of the same pid (a container's sidecar restarts with
# the pid it had)
_STARTED_NS = time.time_ns()


def remove_if_present(path: Path) -> bool:
    """Delete ``path``; True when there was one (a step run again finds it gone)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def remove_stale_temps(directory: Path) -> int:
    """Remove the temp files ``atomic_write_bytes`` left in ``directory`` when a process was
    killed mid-write (a SIGKILL runs no clean-up): they may hold what a purge must not leave,
    a conversation's text. Not this process's own, which may be in use (one of its pid older
    than this process is not its own); call it holding the lock the directory's writers take,
    so that no other writer is mid-write. Returns how many went."""
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return 0
    removed = 0
    for name in names:
        match = _TEMP.match(name)
        if match and (int(match.group(1)) != os.getpid() or _before_us(directory / name)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(directory / name)
                removed += 1
    return removed


def _before_us(path: Path) -> bool:
    try:
        return os.lstat(path).st_mtime_ns < _STARTED_NS
    except FileNotFoundError:
        return False


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600, *,
                       durable: bool = True, still: Callable[[], bool] | None = None) -> bool:
    """Replace ``path`` with ``data``: temp file, fsync, rename, fsync the directory.

    The new file gets exactly ``mode``, whatever the umask. ``durable=False`` leaves out both
    fsyncs, for a file whose loss or emptiness after a crash its reader takes as "not known":
    readers still see the old content or the new, never a part.

    ``still``, when given, is asked once the new content is complete on disk, just before the
    rename: False leaves ``path`` as it is (the temp file removed) and returns False. A writer
    that read the file, changed it and writes it back passes "the file is as I read it", so a
    save that lands meanwhile (a person's, in an editor) is not overwritten; what remains is
    the moment between that check and the rename.
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
        if still is not None and not still():
            tmp.unlink()
            return False
        os.replace(tmp, path)
    except BaseException:  # a failed write, fsync or rename leaves no temp file behind
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)
    return True


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
