"""index/busy.py: an index another process holds is waited for, never taken for damaged.

Reproduced first with two CLI commands started together on a new data directory
(tests/cli/test_cli.py ``test_empty_log_exits_1`` failed about once in 60 runs): switching the new
file to WAL answered "database is locked" at once, ``Index`` took that for an unreadable file,
deleted the other process's index under it and rebuilt it, and the other process then found no
``meta`` table. Here one connection holds a new file's write lock, as a process creating the index
does.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from zettelclaw.errors import LockTimeoutError
from zettelclaw.index import busy as busy_module
from zettelclaw.index import database
from zettelclaw.index.busy import busy
from zettelclaw.index.database import SCHEMA_VERSION, Index


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection to a new index file, inside its write transaction."""
    conn = sqlite3.connect(tmp_path / "index.sqlite", isolation_level=None,
                           check_same_thread=False)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("CREATE TABLE theirs (x)")
    yield conn
    conn.close()


def test_an_index_held_by_another_connection_is_waited_for_not_rebuilt(
        tmp_path: Path, holder: sqlite3.Connection) -> None:
    path = tmp_path / "index.sqlite"
    inode = path.stat().st_ino
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        index = Index(path)
    finally:
        release.join()
    try:
        assert path.stat().st_ino == inode  # the same file: nothing was deleted
        with index.read() as conn:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            assert "theirs" in names  # what the other connection wrote is still there
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert Index._version(index.conn) == SCHEMA_VERSION
    finally:
        index.close()


def test_an_index_that_stays_locked_is_a_lock_timeout_and_is_left_alone(
        tmp_path: Path, holder: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(busy_module, "BUSY_SECONDS", 0.2)
    monkeypatch.setattr(database, "BUSY_SECONDS", 0.2)
    path = tmp_path / "index.sqlite"
    inode = path.stat().st_ino
    with pytest.raises(LockTimeoutError, match="stayed locked by another process"):
        Index(path)
    assert path.stat().st_ino == inode
    holder.execute("COMMIT")
    assert holder.execute("SELECT count(*) FROM theirs").fetchone() == (0,)


def test_busy_tells_a_lock_from_damage(tmp_path: Path, holder: sqlite3.Connection) -> None:
    other = sqlite3.connect(tmp_path / "index.sqlite", timeout=0)
    with pytest.raises(sqlite3.OperationalError) as locked:
        other.execute("BEGIN IMMEDIATE")
    other.close()
    assert busy(locked.value)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database" * 100)
    conn = sqlite3.connect(garbage)
    with pytest.raises(sqlite3.DatabaseError) as damaged:
        conn.execute("SELECT * FROM sqlite_master")
    conn.close()
    assert not busy(damaged.value)
