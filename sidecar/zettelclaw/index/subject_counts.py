"""Per subject: how many of its entries are current, and the newest of them. Kept, not counted.

``subjects.list`` (and ``zettelclaw subjects``) shows these. Counted, they are a scan of every
entry with a subject, long on a large log, holding the index while every search waited. So
SQLite keeps them, in ``subject_stats``, by triggers on ``entries`` that run in the
transaction of each change, whatever code makes it: an insert counts one more and is the
subject's newest (the log is indexed in order); a replacement counts one less; a rename moves
one from a subject to another.

When a subject's newest entry stops being current (replaced by an entry of another subject, or
renamed away), the trigger only marks the newest unknown (NULL): ``settle`` finds it again over
that subject's rows, once the batch is written. Not in the trigger: during a large build the
subject index is dropped (``database.DEFERRABLE_INDEXES``), and each lookup would read the table.
"""

from __future__ import annotations

import sqlite3

TABLE = "subject_stats"

# One statement each: a trigger's body holds semicolons (``database._create`` splits the schema
# on them).
STATEMENTS = (
    """CREATE TABLE IF NOT EXISTS subject_stats (
    subject TEXT PRIMARY KEY,
    current INTEGER NOT NULL,   -- its entries not replaced
    last_line INTEGER,          -- the newest of them; NULL while unknown (settle finds it)
    last_timestamp TEXT
) WITHOUT ROWID""",
    """CREATE TRIGGER IF NOT EXISTS subject_stats_inserted AFTER INSERT ON entries
WHEN NEW.subject IS NOT NULL AND NEW.replaced_by IS NULL BEGIN
    INSERT INTO subject_stats VALUES (NEW.subject, 1, NEW.line, NEW.timestamp)
    ON CONFLICT (subject) DO UPDATE SET current = current + 1,
        last_timestamp = CASE WHEN last_line > NEW.line THEN last_timestamp
                              ELSE NEW.timestamp END,
        last_line = CASE WHEN last_line > NEW.line THEN last_line ELSE NEW.line END;
END""",
    """CREATE TRIGGER IF NOT EXISTS subject_stats_replaced AFTER UPDATE OF replaced_by ON entries
WHEN OLD.subject IS NOT NULL AND OLD.replaced_by IS NULL AND NEW.replaced_by IS NOT NULL BEGIN
    UPDATE subject_stats SET current = current - 1,
        last_line = CASE WHEN last_line = OLD.line THEN NULL ELSE last_line END
    WHERE subject = OLD.subject;
END""",
    """CREATE TRIGGER IF NOT EXISTS subject_stats_renamed AFTER UPDATE OF subject ON entries
WHEN OLD.replaced_by IS NULL AND OLD.subject IS NOT NEW.subject BEGIN
    UPDATE subject_stats SET current = current - 1,
        last_line = CASE WHEN last_line = OLD.line THEN NULL ELSE last_line END
    WHERE subject = OLD.subject;
    INSERT INTO subject_stats SELECT NEW.subject, 1, NULL, NULL WHERE NEW.subject IS NOT NULL
    ON CONFLICT (subject) DO UPDATE SET current = current + 1, last_line = NULL;
END""",
)

# With max(), SQLite takes the bare column (timestamp) from the row that holds the maximum.
_COUNT = ("SELECT subject, count(*), max(line), timestamp FROM entries"
          " WHERE subject IS NOT NULL AND replaced_by IS NULL GROUP BY subject")
_NEWEST = ("SELECT line, timestamp FROM entries WHERE subject = ? AND replaced_by IS NULL"
           " ORDER BY line DESC LIMIT 1")


def create(conn: sqlite3.Connection) -> None:
    """The table and its triggers (in the caller's write transaction), filled from the entries
    already there (an index made before they were kept: counted once)."""
    made = kept(conn)
    for statement in STATEMENTS:
        conn.execute(statement)
    if not made:
        conn.executemany("INSERT INTO subject_stats VALUES (?, ?, ?, ?)", conn.execute(_COUNT))


def kept(conn: sqlite3.Connection) -> bool:
    """Whether this index keeps them (the table and every trigger are there)."""
    names = {row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'subject_stats%'")}
    return names == {TABLE, "subject_stats_inserted", "subject_stats_replaced",
                     "subject_stats_renamed"}


def settle(conn: sqlite3.Connection) -> None:
    """Find the newest entry of each subject whose newest stopped being current, and forget the
    subjects left with none (in the caller's write transaction, with the subject index there)."""
    unknown = conn.execute(
        "SELECT subject FROM subject_stats WHERE last_line IS NULL AND current > 0").fetchall()
    for (subject,) in unknown:
        newest = conn.execute(_NEWEST, (subject,)).fetchone()
        if newest is None:  # none is current after all: counted again below as 0
            conn.execute("UPDATE subject_stats SET current = 0 WHERE subject = ?", (subject,))
            continue
        conn.execute("UPDATE subject_stats SET last_line = ?, last_timestamp = ?"
                     " WHERE subject = ?", (*newest, subject))
    conn.execute("DELETE FROM subject_stats WHERE current <= 0")


def load(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """Per subject with current entries: (how many, the newest one's timestamp). A newest still
    unknown (a build stopped before its end) is looked up, not written."""
    out: dict[str, tuple[int, str]] = {}
    rows = conn.execute("SELECT subject, current, last_line, last_timestamp FROM subject_stats"
                        " WHERE current > 0").fetchall()
    for subject, n, line, kept_timestamp in rows:
        newest = (line, kept_timestamp) if line is not None else conn.execute(
            _NEWEST, (subject,)).fetchone()
        if newest is not None:
            out[subject] = (int(n), str(newest[1]))
    return out


def count(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """The same, by scanning (the check)."""
    return {subject: (int(n), str(timestamp)) for subject, n, _, timestamp in conn.execute(_COUNT)}


def clear(conn: sqlite3.Connection) -> None:
    """With every entry deleted (an index reset)."""
    conn.execute("DELETE FROM subject_stats")


def recount(conn: sqlite3.Connection) -> None:
    """Count them again (in the caller's write transaction): after rows were deleted (entries
    hidden, ``index/ingest.py``), which no trigger follows."""
    clear(conn)
    conn.executemany("INSERT INTO subject_stats VALUES (?, ?, ?, ?)",
                     conn.execute(_COUNT).fetchall())
