"""Giving back the space of deleted rows so that their bytes leave the disk (a purge).

SQLite keeps a deleted row's bytes in free pages and in the WAL until they are reused. After a
purge, the vectors no entry or chunk uses any more are deleted, the file is rewritten without
its free pages (VACUUM), and the WAL is checkpointed and truncated.
"""

from __future__ import annotations

from zettelclaw.index.database import Index


def drop_unused_vectors(index: Index) -> int:
    """Delete the vectors of texts no entry and no chunk has, and of sentences no entry's
    text holds (with their rows in ``text_parts``); returns how many vectors."""
    with index.write() as conn:
        conn.execute("DELETE FROM text_parts WHERE text_hash NOT IN"
                     " (SELECT text_hash FROM entries)")
        return conn.execute(
            "DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM entries)"
            " AND text_hash NOT IN (SELECT text_hash FROM chunks)"
            " AND text_hash NOT IN (SELECT part_hash FROM text_parts)").rowcount


def wipe_free_pages(index: Index) -> None:
    """VACUUM (outside any transaction), then the WAL emptied and truncated."""
    with index.read() as conn:
        conn.execute("PRAGMA secure_delete=ON")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def entry_total(index: Index) -> int:
    """The entries the index holds, the hidden ones (no row, a ``hidden`` id) included."""
    with index.read() as conn:
        return int(conn.execute("SELECT (SELECT count(*) FROM entries)"
                                " + (SELECT count(*) FROM hidden)").fetchone()[0])
