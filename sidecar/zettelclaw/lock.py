"""The data-directory lock that every writer takes: the sidecar, the CLI, a second sidecar.

It is an ``flock`` on a separate file (``HOME/lock``), not on ``log.jsonl`` itself, so that a
rewrite can rename a new log over the old one while still holding the lock. flock locks belong
to an open file description: two threads of one process that each open the lock file exclude
each other just as two processes do.

flock cannot block with a timeout, so a waiter polls with a growing delay (up to 50 ms). Between
threads of one process that would waste up to that much after every release, and the sidecar's
threads (jobs finishing, the index catching up, hooks spooling) take the lock many times a
second. So threads of one process first queue on a ``threading.Lock`` per lock file, which wakes
the next one as soon as it is free; only a holder in another process is polled for.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zettelclaw.errors import LockTimeoutError

DEFAULT_TIMEOUT = 30.0

_in_process: dict[str, threading.Lock] = {}
_in_process_guard = threading.Lock()


def _thread_lock(lock_path: Path) -> threading.Lock:
    key = os.path.abspath(lock_path)
    with _in_process_guard:
        return _in_process.setdefault(key, threading.Lock())


@contextmanager
def exclusive(lock_path: Path, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive data lock for the body of the ``with``.

    Blocks (polling) for at most ``timeout`` seconds, then raises LockTimeoutError naming the
    lock file, so that a stuck writer elsewhere is reported instead of hanging forever.
    """
    deadline = time.monotonic() + timeout
    thread_lock = _thread_lock(lock_path)
    if not thread_lock.acquire(timeout=max(timeout, 0.0)):
        raise LockTimeoutError(f"another writer has held {lock_path} for over {timeout:g} s")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _acquire(fd, lock_path, deadline, timeout)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    finally:
        thread_lock.release()


def _acquire(fd: int, lock_path: Path, deadline: float, timeout: float) -> None:
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
        if time.monotonic() >= deadline:
            raise LockTimeoutError(f"another writer has held {lock_path} for over {timeout:g} s")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
