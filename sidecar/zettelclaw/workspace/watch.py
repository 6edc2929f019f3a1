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

The kernel is asked through inotify_simple (a thin maintained wrapper of the three calls); a
file-watching library with its own thread (watchfiles, watchdog) would hear of a change only
after that thread has: docs/decisions/0011-libraries-and-what-is-kept.md.
"""

from __future__ import annotations

import errno
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any

try:  # Linux's; elsewhere (no termios, or no inotify in the libc) every look walks
    from inotify_simple import INotify, flags
except ImportError:  # pragma: no cover  (not Linux)
    INotify = None

logger = logging.getLogger(__name__)

Relevant = Callable[[str, str, bool], bool]  # (watched directory, name, is a directory): walk?
_INOTIFY: Callable[..., Any] | None = INotify
if INotify is not None:
    WATCHED = (flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.MOVED_FROM
               | flags.MOVED_TO | flags.CREATE | flags.DELETE | flags.DELETE_SELF
               | flags.MOVE_SELF | flags.ONLYDIR)
    _GONE = flags.DELETE_SELF | flags.MOVE_SELF


class Watch:
    """The kernel's word on whether the watched directories changed. ``changed`` drains the
    queue; ``watch`` adds a directory (before it is listed); ``blind`` makes every ``changed``
    say True until the next ``reset``. Thread-safe; the caller serializes walks."""

    def __init__(self, relevant: Relevant) -> None:
        self._relevant = relevant
        self._lock = threading.Lock()
        self._inotify: Any = None  # an inotify_simple.INotify, once made
        self._dirs: dict[int, str] = {}  # watch descriptor -> directory
        self._blind = True  # nothing watched yet: the first look must walk
        self._closer: weakref.finalize[[], Watch] | None = None  # the fd, if left open

    def changed(self) -> bool:
        """True when the memory files may differ from the last walk (the queue is emptied)."""
        with self._lock:
            if self._inotify is None:
                return True
            events = self._drain()
            return self._blind or events

    def reset(self) -> None:
        """Before a walk: watch from now on (made on first use); not blind unless told."""
        with self._lock:
            if self._inotify is None and _INOTIFY is not None:
                try:
                    self._inotify = _INOTIFY(nonblocking=True)
                    self._closer = weakref.finalize(self, self._inotify.close)
                except (OSError, AttributeError) as error:  # none left; a libc without it
                    logger.info("no inotify instance (%s): memory files are walked before "
                                "every search", error)
                    self._blind = True
                    return
            self._blind = self._inotify is None

    def watch(self, directory: str) -> None:
        """Watch ``directory`` (call before listing it)."""
        with self._lock:
            if self._inotify is None:
                return
            try:
                wd = self._inotify.add_watch(directory, WATCHED)
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.ENOTDIR):  # gone: an event says
                    logger.info("cannot watch %s (%s): memory files are walked before every "
                                "search", directory, error.strerror)
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
            self._inotify, self._closer = None, None
            self._dirs.clear()
            self._blind = True

    def _drain(self) -> bool:
        relevant = False
        for event in self._inotify.read(timeout=0):  # what the kernel has queued, now
            if event.mask & flags.Q_OVERFLOW:
                relevant = True
                continue
            if event.mask & flags.IGNORED:  # its directory is gone (its parent's event says so)
                self._dirs.pop(event.wd, None)
                continue
            directory = self._dirs.get(event.wd)
            if directory is None:
                continue
            if event.mask & _GONE or self._relevant(directory, event.name,
                                                    bool(event.mask & flags.ISDIR)):
                relevant = True
        return relevant
