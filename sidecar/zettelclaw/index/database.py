"""The SQLite index file: its schema, opening it, and throwing it away when it cannot be trusted.

``index.sqlite`` holds one row per valid entry (keyed by its line number in log.jsonl; their
words are searched in the term index, ``index/terms.py``, which follows this table); the invalid
lines with their reasons; the workspace's Markdown memory files cut into chunks, with their own
FTS5 table; embedding vectors, keyed by a hash of the text they embed (so a rebuild or a rename
reuses them); counts kept as entries change (``index/counts.py``, ``index/subject_counts.py``);
and ``meta``: how far into the log the index has read, and a fingerprint of the
log that tells an append (read on) from a rewrite (read again from the start). Deleting the file
is always safe: it is rebuilt.

One connection is shared by the threads of a process, serialized by ``lock``; other processes
(the CLI working on the files, a sidecar) use their own connections, and SQLite's WAL locking
keeps them consistent.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import sqlite3
import stat
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zettelclaw.errors import DataDirError, LockTimeoutError
from zettelclaw.index import counts, fts, subject_counts
from zettelclaw.index.busy import BUSY_SECONDS, busy, use_wal

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 5  # 3: the entries' words moved to the term index (index/terms.py); 4: the
# ids' unique index is a named one, which a large build drops (DEFERRABLE_INDEXES); 5: symbols
# (emoji) are words in chunks_fts (fts.FTS_TOKENIZE), made again in place from 4 (_to_5)

CHUNKS_FTS = f"""CREATE VIRTUAL TABLE chunks_fts USING fts5 (
    text, content='chunks', content_rowid='id',
    tokenize="{fts.FTS_TOKENIZE}"
)"""

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE entries (
    line INTEGER PRIMARY KEY,   -- the entry's line number in log.jsonl (1-based)
    id TEXT NOT NULL,           -- unique: the index entries_id (below)
    type TEXT NOT NULL,
    status TEXT,
    subject TEXT,
    session TEXT NOT NULL,
    timestamp TEXT NOT NULL,    -- as written
    ts REAL NOT NULL,           -- the timestamp as Unix seconds, for date filters
    content TEXT NOT NULL,
    detail TEXT,
    replaces TEXT,              -- as written
    supersedes TEXT,            -- the earlier entry this one effectively replaces
    replaced_by TEXT,           -- the newest entry that effectively replaced this one
    subject_name TEXT,          -- the subject's display name, searched with the text
    text_hash TEXT NOT NULL     -- of content and detail: the key of its embedding vector
);
-- each with ts: a filter's newest entries are read in order, not sorted
CREATE INDEX entries_type ON entries (type, ts);
CREATE INDEX entries_ts ON entries (ts);
CREATE TABLE subject_names (   -- the display name each subject's entries are indexed under
    subject TEXT PRIMARY KEY,
    name TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE invalid_lines (line INTEGER PRIMARY KEY, reason TEXT NOT NULL, excerpt TEXT NOT NULL);
CREATE TABLE terms_dirty (     -- entries changed in place, to index again in the term index
    line INTEGER NOT NULL
);
CREATE TABLE files (
    path TEXT PRIMARY KEY,      -- relative to the workspace
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    text TEXT NOT NULL,
    text_hash TEXT NOT NULL
);
CREATE INDEX chunks_path ON chunks (path);
{CHUNKS_FTS};
CREATE TABLE vectors (
    model TEXT NOT NULL,        -- the embedding model that made the vector
    text_hash TEXT NOT NULL,    -- entries.text_hash or chunks.text_hash
    vec BLOB NOT NULL,          -- float16, unit length
    PRIMARY KEY (model, text_hash)
) WITHOUT ROWID;
"""


# Indexes a large build drops and makes again at its end (``index/ingest.py``): ids, subjects
# and sessions come in no order, so each insert lands on a random page of these three (more
# than half of the insert's cost at 1M entries); one sort at the end is cheaper. Meanwhile the
# build knows its ids from memory. If a build stops before its end, the next catch-up that
# reaches the end makes them, or the next open.
IDS_INDEX = "entries_id"
DEFERRABLE_INDEXES = {
    IDS_INDEX: "CREATE UNIQUE INDEX IF NOT EXISTS entries_id ON entries (id)",
    "entries_subject": "CREATE INDEX IF NOT EXISTS entries_subject ON entries (subject, ts)"
                       " WHERE subject IS NOT NULL",
    "entries_session": "CREATE INDEX IF NOT EXISTS entries_session ON entries (session, ts)",
}


# Made at open where missing (indexes added after schema 3 was released): the last current
# handoff, read at every start and after every change (recall/handoff.py): through the type
# index it sorted every handoff by line, which grows with the log (bench/README.md).
ADDED_INDEXES = {
    "entries_current_handoffs": "CREATE INDEX IF NOT EXISTS entries_current_handoffs ON"
                                " entries (line) WHERE type = 'handoff' AND replaced_by IS NULL",
}


# Made at open where missing (added after schema 4 was released): the entries hidden by a
# ``forget`` record of the log (log/hides.py), whose rows are left out of ``entries``.
HIDDEN_TABLE = ("CREATE TABLE IF NOT EXISTS hidden (id TEXT PRIMARY KEY, line INTEGER NOT NULL)"
                " WITHOUT ROWID")


# Made at open where missing (added after schema 5 was released): the sentences of each entry
# text that semantic search compares on their own (search/pieces.py), keyed by the text's
# hash, with how many words each holds. What a text's sentences are depends on the text alone,
# so no rebuild or renumbering of the log makes a row wrong. Filled by the vectorizer with
# their vectors (search/semantic.py); only hashes and counts, no text.
TEXT_PARTS_TABLE = ("CREATE TABLE IF NOT EXISTS text_parts (text_hash TEXT NOT NULL,"
                    " part_hash TEXT NOT NULL, words INTEGER NOT NULL,"
                    " PRIMARY KEY (text_hash, part_hash)) WITHOUT ROWID")
ADDED_TABLES = {"hidden": HIDDEN_TABLE, "text_parts": TEXT_PARTS_TABLE}


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (name,)).fetchone() is not None


def new_epoch() -> str:
    """A name never used before: for this index's entries, new whenever they are indexed from
    the start (the term index, ``index/terms.py``, starts over when it sees another one), and
    for the memory files' chunks, new with each change (``vectors.chunks_stamp``)."""
    return uuid.uuid4().hex


def text_hash(text: str) -> str:
    """The key of a text in the vector cache: entries.text_hash and chunks.text_hash."""
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class IndexMissingError(Exception):
    """``Index(path, create=False)`` found no index of this schema at ``path``."""


class Index:
    def __init__(self, path: Path, *, create: bool = True) -> None:
        """Open the index at ``path``; with ``create`` (the default) make it, or make it
        again when it is of another schema or unreadable. Without, only open one that is there
        (a helper process beside the one that owns it: ``index/terms_follower.py``)."""
        self.path = path
        self.lock = threading.RLock()
        self.conn = self._open() if create else self._open_existing()

    def _open_existing(self) -> sqlite3.Connection:
        if not self.path.is_file():
            raise IndexMissingError(f"no index at {self.path}")
        conn = self._connect()
        if self._version(conn) != SCHEMA_VERSION:
            conn.close()
            raise IndexMissingError(f"{self.path} holds no index of schema {SCHEMA_VERSION}")
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
            version = self._version(conn)
            if version == 4:  # the chunks' words only changed: no need to embed all again
                self._to_5(conn)
                version = SCHEMA_VERSION  # and what was added since 4 was released, below
            if version == SCHEMA_VERSION:
                missing = [made for name, made in ADDED_TABLES.items()
                           if not has_table(conn, name)]
                if missing:
                    with transaction(conn):
                        for statement in missing:
                            conn.execute(statement)
                if (missing_indexes(conn) or not counts.kept(conn)
                        or not subject_counts.kept(conn)):
                    with transaction(conn):
                        make_indexes(conn)  # a large build stopped before its end, or added
                        if not counts.kept(conn):  # made before counts were kept
                            counts.store(conn, *counts.count(conn))
                        if not subject_counts.kept(conn):  # or before subjects' were
                            subject_counts.create(conn)
                return conn
            if version is None:
                # A new file, or one another process is creating right now: never delete it,
                # create the schema (under the write lock, checking again first).
                self._create(conn)
                return conn
            conn.close()
            logger.info("index %s has schema %s, not %s; rebuilding it", self.path, version,
                        SCHEMA_VERSION)
        except sqlite3.DatabaseError as exc:
            if busy(exc):  # held by another process, not damaged: its files are not ours
                raise LockTimeoutError(f"the search index {self.path} stayed locked by another "
                                       f"process for over {BUSY_SECONDS:g} s") from exc
            logger.warning("index %s is unreadable (%s); rebuilding it", self.path, exc)
        self._remove_files()
        conn = self._connect()
        self._create(conn)
        return conn

    def _to_5(self, conn: sqlite3.Connection) -> None:
        """chunks_fts made again with symbols as words (the term index's own format changed
        with it: index/terms.py FORMAT)."""
        with transaction(conn):
            if self._version(conn) != 4:  # another process has just done it
                return
            conn.execute("DROP TABLE chunks_fts")
            conn.execute(CHUNKS_FTS)
            chunks = conn.execute("SELECT id, text FROM chunks").fetchall()
            conn.executemany("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
                             [(key, fts.indexed_text(text)) for key, text in chunks])
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                         (SCHEMA_VERSION,))
        logger.info("index %s: its Markdown chunks' words made again (schema %s)", self.path,
                    SCHEMA_VERSION)

    def _create(self, conn: sqlite3.Connection) -> None:
        with transaction(conn):  # BEGIN IMMEDIATE: one creator at a time, across processes
            if self._version(conn) == SCHEMA_VERSION:  # another process has just made it
                return
            # one statement at a time: executescript() would COMMIT the open transaction
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            make_indexes(conn)
            for statement in ADDED_TABLES.values():
                conn.execute(statement)
            subject_counts.create(conn)
            counts.store(conn, {}, 0)
            conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            conn.execute("INSERT INTO meta VALUES ('terms_epoch', ?)", (new_epoch(),))

    def _connect(self) -> sqlite3.Connection:
        # Created 0600 by us: SQLite gives its -wal and -shm files the same mode. Anything else
        # at that path (a directory, a link, a FIFO) is not ours to delete or to follow.
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
                         0o600)
        except OSError as exc:
            raise DataDirError(f"{self.path} cannot be the search index ({exc.strerror}): move "
                               "it away; the index is rebuilt from the log") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise DataDirError(f"{self.path} is not a regular file, so it cannot be the "
                                   "search index: move it away; the index is rebuilt from the "
                                   "log")
        finally:
            os.close(fd)
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=BUSY_SECONDS)
        conn.row_factory = sqlite3.Row
        try:
            use_wal(conn)
        except sqlite3.Error:
            conn.close()
            raise
        # The index is derived: after a power loss it is checked against the log and rebuilt
        # if needed, so commits need not wait for the disk.
        conn.execute("PRAGMA synchronous=OFF")
        conn.execute("PRAGMA cache_size=-65536")
        conn.execute("PRAGMA temp_store=MEMORY")
        try:  # ranking uses SQLite's math functions; a build without them gets Python's
            conn.execute("SELECT pow(0.5, 2.0)")
        except sqlite3.OperationalError:
            conn.create_function("pow", 2, math.pow, deterministic=True)
        return conn

    @staticmethod
    def _version(conn: sqlite3.Connection) -> int | None:
        has_meta = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        if not has_meta:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else None

    def _remove_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, exclusive across threads and (BEGIN IMMEDIATE) processes."""
        with self.lock, transaction(self.conn):
            yield self.conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            yield self.conn

    def meta(self, conn: sqlite3.Connection) -> dict[str, object]:
        return {row[0]: row[1] for row in conn.execute("SELECT key, value FROM meta")}

    @staticmethod
    def set_meta(conn: sqlite3.Connection, values: dict[str, object]) -> None:
        conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", list(values.items()))


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def missing_indexes(conn: sqlite3.Connection) -> bool:
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    return not names.issuperset({*DEFERRABLE_INDEXES, *ADDED_INDEXES})


def make_indexes(conn: sqlite3.Connection) -> None:
    """The deferrable and added indexes, where they are missing (in the caller's
    transaction)."""
    for statement in (*DEFERRABLE_INDEXES.values(), *ADDED_INDEXES.values()):
        conn.execute(statement)


def drop_indexes(conn: sqlite3.Connection, *, ids: bool) -> None:
    """Before a large build from the start: ``make_indexes`` at its end. ``ids``: the ids'
    unique index too (the build knows its ids from memory meanwhile)."""
    for name in DEFERRABLE_INDEXES:
        if ids or name != IDS_INDEX:
            conn.execute(f"DROP INDEX IF EXISTS {name}")


def has_ids_index(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                        (IDS_INDEX,)).fetchone() is not None
