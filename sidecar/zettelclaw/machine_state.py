"""Failures that say something about the machine, not about the code: a full disk, a read-only
file system, no file descriptors left. The dispatcher answers them -32010 (not -32603, a bug),
and reads go on from the index as it is when it cannot be brought up to date."""

from __future__ import annotations

import errno
import sqlite3

_ERRNOS = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
           errno.EROFS: "the file system is read-only",
           errno.EMFILE: "the process is out of file descriptors",
           errno.ENFILE: "the system is out of file descriptors",
           errno.EACCES: "permission denied", errno.EPERM: "permission denied",
           errno.EIO: "an input/output error"}
_SQLITE = {"SQLITE_FULL": "the disk is full", "SQLITE_READONLY": "the file system is read-only",
           "SQLITE_IOERR": "an input/output error", "SQLITE_CANTOPEN": "a file cannot be opened",
           "SQLITE_PERM": "permission denied"}


def machine_state(exc: BaseException) -> str | None:
    """What ``exc`` says of the machine ("the disk is full"), or None when it is not that."""
    if isinstance(exc, OSError):
        return _ERRNOS.get(exc.errno or 0)
    if isinstance(exc, sqlite3.OperationalError):
        name = getattr(exc, "sqlite_errorname", "") or ""
        return next((said for prefix, said in _SQLITE.items() if name.startswith(prefix)), None)
    return None
