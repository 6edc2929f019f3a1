"""Whether the workspace's memory files may have changed since they were last looked at,
answered by the kernel (Linux inotify) instead of a walk and a stat per file.

Every search brings the memory files' chunks up to date first (``index/file_chunks.py``). A
workspace that holds a year of daily notes (``memory/2026-01-01.md``, ...) made that walk 11-22
ms a search here, five to ten times the search itself; with a watch, a search with nothing
changed reads one empty inotify queue (microseconds).

Exact, not a debounce: the queue is drained *before* the files are walked, and a directory is
watched *before* it is listed, so a change made during a walk is either seen by that walk or
leaves an event for the next search. Where the kernel cannot tell, ``changed`` answers True and
the caller walks as before: not Linux, no inotify watches left, a queue overflow, a memory file
or ``memory/`` that is a symlink (an edit at its target raises no event here), and a directory
the watch could not be added to.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import struct
import threading
import weakref
from collections.abc import Callable

logger = logging.getLogger(__name__)

# <sys/inotify.h>
IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ISDIR = 0x40000000
IN_ONLYDIR = 0x01000000
WATCHED = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE
           | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of name
_READ_BYTES = 64 * 1024

Relevant = Callable[[str, str, bool], bool]  # (watched directory, name, is a directory): walk?


def _inotify() -> tuple[Callable[..., int], Callable[..., int]] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.inotify_init1, libc.inotify_add_watch
    except (OSError, AttributeError):  # not Linux (or a libc without inotify)
        return None


_CALLS = _inotify()


class Watch:
    """The kernel's word on whether the watched directories changed. ``changed`` drains the
    queue; ``watch`` adds a directory (before it is listed); ``blind`` makes every ``changed``
    say True until the next ``reset``. Thread-safe; the caller serializes walks."""

    def __init__(self, relevant: Relevant) -> None:
        self._relevant = relevant
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._dirs: dict[int, str] = {}  # watch descriptor -> directory
        self._blind = True  # nothing watched yet: the first look must walk
        self._closer: weakref.finalize[[int], Watch] | None = None  # the fd, if left open

    def changed(self) -> bool:
        """True when the memory files may differ from the last walk (the queue is emptied)."""
        with self._lock:
            if self._fd is None:
                return True
            events = self._drain()
            return self._blind or events

    def reset(self) -> None:
        """Before a walk: watch from now on (made on first use); not blind unless told."""
        with self._lock:
            if self._fd is None and _CALLS is not None:
                fd = _CALLS[0](os.O_NONBLOCK | os.O_CLOEXEC)
                if fd < 0:
                    logger.info("no inotify instance (%s): memory files are walked before "
                                "every search", os.strerror(ctypes.get_errno()))
                    self._blind = True
                    return
                self._fd = fd
                self._closer = weakref.finalize(self, os.close, fd)
            self._blind = self._fd is None

    def watch(self, directory: str) -> None:
        """Watch ``directory`` (call before listing it)."""
        with self._lock:
            if self._fd is None or _CALLS is None:
                return
            wd = _CALLS[1](self._fd, os.fsencode(directory), WATCHED)
            if wd < 0:
                code = ctypes.get_errno()
                if code not in (errno.ENOENT, errno.ENOTDIR):  # gone meanwhile: an event says
                    logger.info("cannot watch %s (%s): memory files are walked before every "
                                "search", directory, os.strerror(code))
                    self._blind = True
                return
            self._dirs[wd] = directory

    def blind(self) -> None:
        """Something the kernel cannot report on (a symlink): walk every time."""
        with self._lock:
            self._blind = True

    def close(self) -> None:
        with self._lock:
            if self._closer is not None:
                self._closer()
                self._closer, self._fd = None, None
            self._dirs.clear()
            self._blind = True

    def _drain(self) -> bool:
        assert self._fd is not None
        relevant = False
        while True:
            try:
                data = os.read(self._fd, _READ_BYTES)
            except BlockingIOError:
                return relevant
            at = 0
            while at + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size:at + _EVENT.size + length].rstrip(b"\0")
                at += _EVENT.size + length
                if mask & IN_Q_OVERFLOW:
                    relevant = True
                    continue
                if mask & IN_IGNORED:  # its directory is gone (its parent's event says so)
                    self._dirs.pop(wd, None)
                    continue
                directory = self._dirs.get(wd)
                if directory is None:
                    continue
                if mask & (IN_DELETE_SELF | IN_MOVE_SELF) or self._relevant(
                        directory, os.fsdecode(name), bool(mask & IN_ISDIR)):
                    relevant = True
