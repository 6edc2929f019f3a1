"""SQLite's "database is locked", told apart from a damaged file.

Another process holding the index is a reason to wait, never to rebuild: ``database.Index``
deletes and rebuilds a file it cannot read, and once took a file another process was creating
for one (two CLI commands started together on a new data directory).
"""

from __future__ import annotations

import sqlite3
import time

BUSY_SECONDS = 30.0  # how long a connection waits for another one's lock


def busy(exc: sqlite3.Error) -> bool:
    """SQLite's "database is locked": another connection holds it; nothing is damaged."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF  # the primary code, without its extension
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def use_wal(conn: sqlite3.Connection) -> None:
    """WAL mode. A new file needs a moment to itself to switch, and while another process is
    creating the index SQLite answers "locked" at once, without waiting out the busy timeout
    (two CLI commands on a new data directory: one took the other's file for damaged, deleted it
    and rebuilt it under the other). So wait here, as the busy timeout would."""
    deadline = time.monotonic() + BUSY_SECONDS
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
