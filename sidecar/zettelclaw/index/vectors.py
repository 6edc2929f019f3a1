"""The ``vectors`` table and the reads semantic search makes of entries and chunks.

Vectors are float16 unit vectors keyed by (model, hash of the text): a rebuild or a rename
reuses them, and a new model makes new ones. What the vectors mean is ``search/semantic.py``'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence


def drop_other_models(conn: sqlite3.Connection, model: str) -> None:
    conn.execute("DELETE FROM vectors WHERE model != ?", (model,))


def store(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, bytes]]) -> None:
    """(model, text hash, vector bytes) rows, replacing any of the same key."""
    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)


def has_vector(conn: sqlite3.Connection, model: str, text_hash: str) -> bool:
    row = conn.execute("SELECT 1 FROM vectors WHERE model = ? AND text_hash = ?",
                       (model, text_hash)).fetchone()
    return row is not None


def vector(conn: sqlite3.Connection, model: str, text_hash: str) -> bytes | None:
    row = conn.execute("SELECT vec FROM vectors WHERE model = ? AND text_hash = ?",
                       (model, text_hash)).fetchone()
    return None if row is None else bytes(row[0])


def current_entries_after(conn: sqlite3.Connection, line: int, limit: int
                          ) -> Sequence[tuple[int, str, str, str | None]]:
    """(line, text hash, content, detail) of current entries after ``line``, in log order."""
    rows: Sequence[tuple[int, str, str, str | None]] = conn.execute(
        "SELECT line, text_hash, content, detail FROM entries WHERE line > ?"
        " AND replaced_by IS NULL ORDER BY line LIMIT ?", (line, limit)).fetchall()
    return rows


def entry_vectors_after(conn: sqlite3.Connection, model: str, line: int, upto: int,
                        limit: int = -1) -> list[tuple[int, bytes]]:
    """(line, vector) of the entries after ``line`` and up to ``upto`` that have a vector, in
    log order (the first ``limit`` of them, when given)."""
    return conn.execute(
        "SELECT e.line, v.vec FROM entries e JOIN vectors v ON v.model = ?"
        " AND v.text_hash = e.text_hash WHERE e.line > ? AND e.line <= ? ORDER BY e.line"
        " LIMIT ?", (model, line, upto, limit)).fetchall()


def line_before(conn: sqlite3.Connection, upto: int, count: int) -> int:
    """The line after which ``count`` entries are, up to ``upto`` (0 when fewer are)."""
    row = conn.execute("SELECT line FROM entries WHERE line <= ? ORDER BY line DESC"
                       " LIMIT 1 OFFSET ?", (upto, count)).fetchone()
    return 0 if row is None else int(row[0])


def entries_between(conn: sqlite3.Connection, line: int, upto: int) -> int:
    """How many entries are after ``line`` and up to ``upto`` (at least as many as have a
    vector: a cheap bound before reading them)."""
    return int(conn.execute("SELECT count(*) FROM entries WHERE line > ? AND line <= ?",
                            (line, upto)).fetchone()[0])


def parts_between(conn: sqlite3.Connection, line: int, upto: int) -> int:
    """How many sentences the entries after ``line`` and up to ``upto`` are compared by."""
    return int(conn.execute(
        "SELECT count(*) FROM entries e JOIN text_parts p ON p.text_hash = e.text_hash"
        " WHERE e.line > ? AND e.line <= ?", (line, upto)).fetchone()[0])


def store_parts(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, int]]) -> None:
    """(text hash, sentence hash, its words) rows: the sentences an entry text is also compared
    by (``search/pieces.py``)."""
    conn.executemany("INSERT OR IGNORE INTO text_parts VALUES (?, ?, ?)", rows)


def forget_parts(conn: sqlite3.Connection) -> None:
    """Every text's sentences forgotten (their vectors stay): made under another rule."""
    conn.execute("DELETE FROM text_parts")


def part_vectors_after(conn: sqlite3.Connection, model: str, line: int, upto: int,
                       limit: int = -1) -> list[tuple[int, bytes, int]]:
    """(line, vector, words) of the sentences of the entries after ``line`` and up to
    ``upto`` that have a vector, in log order (the first ``limit`` of them, when given)."""
    return conn.execute(
        "SELECT e.line, v.vec, p.words FROM entries e"
        " JOIN text_parts p ON p.text_hash = e.text_hash"
        " JOIN vectors v ON v.model = ? AND v.text_hash = p.part_hash"
        " WHERE e.line > ? AND e.line <= ? ORDER BY e.line LIMIT ?",
        (model, line, upto, limit)).fetchall()


def chunk_texts(conn: sqlite3.Connection) -> list[str]:
    return [text for (text,) in conn.execute("SELECT text FROM chunks")]


def chunks_in_order(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """(id, text) of every memory-file chunk, by id."""
    yield from conn.execute("SELECT id, text FROM chunks ORDER BY id")


def chunks_stamp(conn: sqlite3.Connection) -> tuple[object, ...]:
    """Changes when chunks are added, removed or replaced: with their count and highest id,
    the version file_chunks renews with each change (a replaced last chunk gets its id back)."""
    row = conn.execute(
        "SELECT count(*), coalesce(max(id), 0),"
        " (SELECT value FROM meta WHERE key = 'chunks_version') FROM chunks").fetchone()
    return tuple(row)


def last_line(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(line), 0) FROM entries").fetchone()[0])
