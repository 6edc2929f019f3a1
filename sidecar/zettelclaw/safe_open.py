"""Opening a file under a root directory by descriptor, so that what was checked is what is read.

A path checked and then opened can change in between: a file swapped for a symbolic link to a
secret, or for a FIFO that blocks ``open`` forever. So the path is opened component by component
from the root's descriptor, each with ``O_NOFOLLOW`` (a link anywhere on the way fails instead of
being followed), the file itself also with ``O_NONBLOCK`` (a FIFO does not block), and the open
descriptor is checked with ``fstat``: a regular file. It is read with a cap, never whole.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePath

from zettelclaw.errors import NotFoundError, PathNotAllowedError


def open_beneath(root: Path, relative: PurePath) -> int:
    """A descriptor of the regular file ``root/relative`` reached without following any link.
    Raises NotFoundError (gone, or changed while it was opened) or PathNotAllowedError."""
    parts = relative.parts
    if not parts or any(p in ("", ".", "..") or "/" in p for p in parts):
        raise PathNotAllowedError(f"{str(relative)!r} is not a path inside the workspace")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            inner = _open_at(fd, part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, relative)
            os.close(fd)
            fd = inner
        file_fd = _open_at(fd, parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK,
                           relative)
    finally:
        os.close(fd)
    st = os.fstat(file_fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(file_fd)
        raise PathNotAllowedError(f"{str(relative)!r} is not a regular file",
                                  {"path": str(relative)})
    return file_fd


def _open_at(dir_fd: int, name: str, flags: int, relative: PurePath) -> int:
    try:
        return os.open(name, flags | os.O_CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        raise NotFoundError(f"{str(relative)!r} does not exist in the workspace",
                            {"path": str(relative)}) from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a link or a file where a dir was
            raise NotFoundError(f"{str(relative)!r} changed while it was being opened (a "
                                "link took its place); try again", {"path": str(relative)}
                                ) from None
        raise


def read_capped(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from the start of ``fd``: a huge or sparse file costs no more."""
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = os.pread(fd, min(1 << 20, limit - total), total)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)
