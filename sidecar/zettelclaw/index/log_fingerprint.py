"""How the index tells an append to the log from anything else.

A fingerprint is stored with the index's position in the log: the log's device and inode (a
rewrite renames a new file in), and hashes of the first and last indexed bytes (an edit in
place); the log's size tells a truncation. Anything but an append makes the index read the log
again from the start (``index/ingest.py``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from zettelclaw.log.lines import Position

FINGERPRINT_BYTES = 4096


@dataclass(frozen=True)
class LogStat:
    """What a stat of the log says: compared to tell that it changed (a cheap look before a
    sync)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> LogStat | None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def fingerprint(fd: int, offset: int) -> dict[str, object]:
    """Hashes of the first and last indexed bytes, stored in the index's meta."""
    head = os.pread(fd, min(FINGERPRINT_BYTES, offset), 0)
    tail_len = min(FINGERPRINT_BYTES, offset)
    tail = os.pread(fd, tail_len, offset - tail_len)
    return {"head_hash": hashlib.blake2b(head, digest_size=16).hexdigest(),
            "tail_hash": hashlib.blake2b(tail, digest_size=16).hexdigest()}


def rewritten(meta: dict[str, object], st: os.stat_result, fd: int, position: Position) -> bool:
    """Whether the log open at ``fd`` is anything but the indexed one, grown or as it was."""
    if "ino" not in meta:
        return False  # a new index: nothing to compare
    if (meta.get("dev"), meta.get("ino")) != (st.st_dev, st.st_ino):
        return True
    if st.st_size < position.offset:
        return True
    if (position.open_tail and st.st_size > position.offset
            and os.pread(fd, 1, position.offset) != b"\n"):
        return True  # read_lines would raise LineContinuedError: it is another line now
    now = fingerprint(fd, position.offset)
    return any(meta.get(key) != value for key, value in now.items())
