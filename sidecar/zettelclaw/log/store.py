"""Appending to the log: whole lines, one write per batch, fsynced, under the data lock.

Before each append the store looks at the last byte of the log. If it is not a newline, the last
line was torn by a crash (or written by hand without a final newline): the store writes a newline
first, in the same write as the batch, so that a new entry never merges into the old bytes. The
torn bytes are kept, never truncated: they are reported as an invalid line, and a hand-written
entry without its newline stays an entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from zettelclaw import failpoints, lock
from zettelclaw.files import ends_with_newline, write_all
from zettelclaw.home import FILE_MODE, Home
from zettelclaw.log.lines import START, Line, Position, read_lines
from zettelclaw.log.schema import Entry, entry_to_line


@dataclass(frozen=True)
class AppendResult:
    offset: int  # where the batch starts in the file
    size: int  # the log's size after the append
    repaired_tail: bool  # a newline was written first to close a torn last line


class LogStore:
    def __init__(self, home: Home) -> None:
        self.home = home

    @property
    def path(self) -> Path:
        return self.home.log

    def append(self, entries: Sequence[Entry]) -> AppendResult:
        """Append ``entries`` durably, as one write, holding the data lock."""
        with lock.exclusive(self.home.lock):
            return self.append_locked(entries)

    def append_locked(self, entries: Sequence[Entry]) -> AppendResult:
        """``append`` for a caller that already holds the data lock."""
        return self.append_lines_locked(b"".join(entry_to_line(entry) for entry in entries))

    def append_lines_locked(self, batch: bytes) -> AppendResult:
        """Whole lines (an entry's, a hide record's: log/hides.py), as ``append_locked``."""
        # O_RDWR, not O_WRONLY: the last byte is read through the same descriptor
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            size = os.fstat(fd).st_size
            repaired = not ends_with_newline(fd)
            if repaired:
                batch = b"\n" + batch
            if batch:
                failpoints.torn_write(fd, batch)
                write_all(fd, batch)
                os.fsync(fd)
            return AppendResult(size + int(repaired), size + len(batch), repaired)
        finally:
            os.close(fd)

    def end_last_line_locked(self, size: int | None = None) -> bool:
        """End an unfinished last line with a newline (torn by a crash, or typed without one),
        so that the next append by anyone starts a line of its own. With ``size``, only if the
        log still has that size (it has not moved since it was seen). True when one was added."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW)
        except FileNotFoundError:
            return False
        try:
            st = os.fstat(fd)
            if st.st_size == 0 or ends_with_newline(fd) or size not in (None, st.st_size):
                return False
            write_all(fd, b"\n")
            os.fsync(fd)
            return True
        finally:
            os.close(fd)

    def lines(self, start: Position = START) -> Iterator[Line]:
        """Every line from ``start`` to the current end, valid or not."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            end = os.fstat(fd).st_size
            for line, _ in read_lines(fd, start, end):
                yield line
        finally:
            os.close(fd)

    def entries(self) -> Iterator[Entry]:
        for line in self.lines():
            if line.entry is not None:
                yield line.entry

