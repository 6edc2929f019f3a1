"""Opening a file under a root directory by descriptor, so that what was checked is what is read.

A path checked and then opened can change in between: a file swapped for a symbolic link to a
secret, or for a FIFO that blocks ``open`` forever. So the path is opened component by component
from the root's descriptor, each with ``O_NOFOLLOW`` (a link anywhere on the way fails instead of
being followed), the file itself also with ``O_NONBLOCK`` (a FIFO does not block), and the open
descriptor is checked with ``fstat``: a regular file. It is read with a cap, never whole.

A path a person names (an import's source: links there are theirs to make) is opened by
``open_regular``: links followed, but never blocking and never anything but a regular file, so
a FIFO, a device (``/dev/zero``) or a socket is refused as unreadable, not waited on or read
without end.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import BinaryIO

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


class NotRegularFile(OSError):
    """What ``open_regular`` refuses: a FIFO, a device, a socket or a folder. An ``OSError``,
    so a reader that turns an unreadable file into a problem naming it does so for this too."""

    def __init__(self, path: Path, mode: int) -> None:
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else
                "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                "a socket" if stat.S_ISSOCK(mode) else
                "a folder" if stat.S_ISDIR(mode) else "a special file")
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))


def open_regular(path: Path, *, follow: bool = True) -> int:
    """A descriptor of the regular file at ``path`` (a link at its end followed unless
    ``follow`` is False: then it fails with ELOOP), opened without blocking; ``NotRegularFile``
    (an OSError) for anything else."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path, limit: int, *, follow: bool = True) -> bytes:
    """At most ``limit`` bytes of the regular file at ``path`` (ask for one more than the most
    wanted to tell a file too large); ``NotRegularFile`` for anything else."""
    fd = open_regular(path, follow=follow)
    try:
        return read_capped(fd, limit)
    finally:
        os.close(fd)


@contextmanager
def regular_stream(path: Path) -> Iterator[BinaryIO]:
    """The regular file at ``path`` as a binary stream (a zip reader's, a scanner's), opened as
    ``open_regular`` opens it."""
    with os.fdopen(open_regular(path), "rb") as stream:
        yield stream

