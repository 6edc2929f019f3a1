"""Append-only files of entry ids (``HOME/replicate/received``, ``.../purged``), one a line.

Appended whole and fsynced; read back into a set, again only from where the last read stopped
(the files only grow). A torn last line (a kill mid-write) is ignored when read and closed by
the next append: an id is in the file once its line is whole.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

from zettelclaw.files import ends_with_newline, write_all
from zettelclaw.home import FILE_MODE
from zettelclaw.log.schema import ID_RE


class IdFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._ids: set[str] = set()
        self._read_to = 0
        self._guard = threading.Lock()

    def ids(self) -> frozenset[str]:
        with self._guard:
            self._refresh()
            return frozenset(self._ids)

    def __contains__(self, entry_id: object) -> bool:
        with self._guard:
            self._refresh()
            return entry_id in self._ids

    def add(self, ids: Iterable[str]) -> None:
        """Append ``ids`` durably (the caller holds the data lock: one writer at a time)."""
        batch = b"".join(i.encode() + b"\n" for i in ids)
        if not batch:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            if not ends_with_newline(fd):
                batch = b"\n" + batch
            write_all(fd, batch)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _refresh(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self._ids.clear()
            self._read_to = 0
            return
        try:
            size = os.fstat(fd).st_size
            if size < self._read_to:  # replaced by hand: read it again
                self._ids.clear()
                self._read_to = 0
            if size == self._read_to:
                return
            data = os.pread(fd, size - self._read_to, self._read_to)
        finally:
            os.close(fd)
        end = data.rfind(b"\n") + 1
        for raw in data[:end].split(b"\n"):
            text = raw.strip().decode("ascii", "replace")
            if ID_RE.match(text):
                self._ids.add(text)
        self._read_to += end
