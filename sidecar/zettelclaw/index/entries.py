"""The entry repository: entries by filters, by id with their chains, by line; counts.

Every function takes a connection (the caller holds the index lock) and returns rows or plain
data; the protocol's result shapes are built in ``protocol/results/``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from zettelclaw.index import counts as kept_counts
from zettelclaw.index import subject_counts
from zettelclaw.log.schema import EntryRecord

ENTRY_COLUMNS = ("id", "timestamp", "type", "content", "status", "detail", "subject", "replaces",
                 "session")


@dataclass(frozen=True)
class Filters:
    type: str | None = None
    subject: str | None = None
    status: str | None = None
    session: str | None = None
    since: float | None = None  # Unix seconds, inclusive
    until: float | None = None  # Unix seconds, inclusive
    include_replaced: bool = False

    def sql(self) -> tuple[str, list[Any]]:
        clauses, params = [], []
        for column in ("type", "subject", "status", "session"):
            value = getattr(self, column)
            if value is not None:
                clauses.append(f"e.{column} = ?")
                params.append(value)
        if self.since is not None:
            clauses.append("e.ts >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append("e.ts <= ?")
            params.append(self.until)
        if not self.include_replaced:
            clauses.append("e.replaced_by IS NULL")
        return (" AND ".join(clauses) or "1"), params


def entry_dict(row: sqlite3.Row) -> EntryRecord:
    """The entry as it stands in the log: its fields in line order, absent ones left out (a
    plain dict, typed: search returns many, and a model each would cost)."""
    return cast(EntryRecord, {key: row[key] for key in ENTRY_COLUMNS if row[key] is not None})


def filter_entries(conn: sqlite3.Connection, filters: Filters, limit: int, order: str = "time"
                   ) -> list[sqlite3.Row]:
    """The current entries (or all, with include_replaced) that match the filters exactly,
    newest first: by timestamp (``time``; entries of the same second by log position), or by
    position in the log (``log``: what ``tail`` shows, an entry appended late with an old date
    included). Keyword search is search.engine's."""
    where, params = filters.sql()
    # entries_ts is (ts, line): read backwards, it yields this order without a sort
    by = "e.ts DESC, e.line DESC" if order == "time" else "e.line DESC"
    rows: list[sqlite3.Row] = conn.execute(
        f"SELECT e.* FROM entries e WHERE {where} ORDER BY {by} LIMIT ?",  # noqa: S608
        [*params, limit],
    ).fetchall()
    return rows


@dataclass(frozen=True, slots=True)
class Chain:
    """An entry with its chain: ``replaces`` (older versions, nearest first; a hidden one left
    out) and ``replaced_by`` (newer versions up to the current one, nearest first)."""

    entry: EntryRecord
    line: int
    current: bool
    replaces: list[EntryRecord]
    replaced_by: list[EntryRecord]

    @property
    def newest(self) -> EntryRecord:
        """The current version (or the last one the log keeps)."""
        return self.replaced_by[-1] if self.replaced_by else self.entry


def current_twin(conn: sqlite3.Connection, session: str, kind: str, content: str,
                 subject: str | None) -> str | None:
    """The id of the first current entry (not replaced; a hidden one has no row) of
    ``session`` with this type, content and subject, if any (``memory.remember``)."""
    row = conn.execute("SELECT id FROM entries WHERE session = ? AND type = ? AND content = ?"
                       " AND subject IS ? AND replaced_by IS NULL ORDER BY line LIMIT 1",
                       (session, kind, content, subject)).fetchone()
    return None if row is None else str(row[0])


def get_entry(conn: sqlite3.Connection, entry_id: str) -> Chain | None:
    """The entry with its chain, None when no entry has this id (or it is hidden)."""
    row = conn.execute("SELECT * FROM entries WHERE id = ?", (entry_id,)).fetchone()
    if row is None:
        return None
    older, newer = [], []
    cursor = row
    while cursor["supersedes"] is not None:  # each step moves earlier in the log: it ends
        cursor = conn.execute("SELECT * FROM entries WHERE id = ?",
                              (cursor["supersedes"],)).fetchone()
        if cursor is None:  # a hidden version (log/hides.py): its row is left out
            break
        older.append(entry_dict(cursor))
    cursor = row
    while cursor["replaced_by"] is not None:  # each step moves later in the log: it ends
        cursor = conn.execute("SELECT * FROM entries WHERE id = ?",
                              (cursor["replaced_by"],)).fetchone()
        if cursor is None:
            break
        newer.append(entry_dict(cursor))
    return Chain(entry=entry_dict(row), line=row["line"], current=row["replaced_by"] is None,
                 replaces=older, replaced_by=newer)


@dataclass(frozen=True, slots=True)
class InvalidLine:
    line: int
    reason: str
    excerpt: str


@dataclass(frozen=True, slots=True)
class Counts:
    """The entries indexed, by type; how many are replaced; how many lines are invalid."""

    total: int
    by_type: dict[str, int]
    replaced: int
    invalid_lines: int


def counts(conn: sqlite3.Connection) -> Counts:
    by_type, replaced = kept_counts.load(conn)
    invalid = conn.execute("SELECT count(*) FROM invalid_lines").fetchone()
    return Counts(total=sum(by_type.values()), by_type=by_type, replaced=replaced,
                  invalid_lines=invalid[0])


def total(conn: sqlite3.Connection) -> int:
    """How many entries, from the counts the index keeps (``count(*)`` read every row, per
    agent in every ``status``: slow on a large log, slower with its pages not cached)."""
    return sum(kept_counts.load(conn)[0].values())


def peek_total(index_path: Path) -> int | None:
    """The entries in the index of a memory that is not open, read-only (None: no index yet,
    or one that cannot be read now)."""
    if not index_path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{index_path.absolute().as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            return total(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def invalid_lines(conn: sqlite3.Connection, limit: int) -> list[InvalidLine]:
    rows = conn.execute("SELECT line, reason, excerpt FROM invalid_lines ORDER BY line LIMIT ?",
                        (limit,))
    return [InvalidLine(line, reason, excerpt) for line, reason, excerpt in rows]


def subject_stats(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """Per subject: how many current entries, and the timestamp of the newest one (kept by
    the index: ``index/subject_counts.py``)."""
    return subject_counts.load(conn)


def last_handoff(conn: sqlite3.Connection) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        # named: without statistics SQLite picks the type index and sorts every handoff
        "SELECT * FROM entries INDEXED BY entries_current_handoffs"
        " WHERE type = 'handoff' AND replaced_by IS NULL ORDER BY line DESC LIMIT 1").fetchone()
    return row


def open_items(conn: sqlite3.Connection, session: str, limit: int) -> list[sqlite3.Row]:
    """The session's current open tasks and decisions, in log order."""
    return conn.execute(
        "SELECT * FROM (SELECT * FROM entries WHERE session = ? AND replaced_by IS NULL"
        " AND ((type = 'task' AND status = 'open') OR type = 'decision')"
        " ORDER BY line DESC LIMIT ?) ORDER BY line", (session, limit)).fetchall()


def subject_entries(conn: sqlite3.Connection, slug: str) -> int:
    """How many entries (current or not) are about ``slug``."""
    return int(conn.execute("SELECT count(*) FROM entries WHERE subject = ?",
                            (slug,)).fetchone()[0])


_TABLES = {"log": ("entries", "line"), "file": ("chunks", "id")}


def rows_by_key(conn: sqlite3.Connection, kind: str, keys: list[int]) -> dict[int, sqlite3.Row]:
    """Entries by line (``kind`` log) or memory-file chunks by id (``kind`` file)."""
    table, key = _TABLES[kind]
    if not keys:
        return {}
    rows = conn.execute(f"SELECT * FROM {table} WHERE {key} IN"  # noqa: S608
                        f" ({','.join('?' * len(keys))})", keys).fetchall()
    return {row[key]: row for row in rows}


def texts(conn: sqlite3.Connection, lines: list[int]) -> Iterator[tuple[int, str, str | None]]:
    """(line, content, detail) of the entries at these lines, 500 at a time."""
    for start in range(0, len(lines), 500):
        part = lines[start:start + 500]
        yield from conn.execute(
            "SELECT line, content, detail FROM entries"  # noqa: S608
            f" WHERE line IN ({','.join('?' * len(part))})", part)


def texts_and_subjects(conn: sqlite3.Connection, lines: list[int]
                       ) -> Iterator[tuple[int, str, str | None, str | None]]:
    """(line, content, detail, the subject's display name) of the entries at these lines, 500
    at a time."""
    for start in range(0, len(lines), 500):
        part = lines[start:start + 500]
        yield from conn.execute(
            "SELECT line, content, detail, subject_name FROM entries"  # noqa: S608
            f" WHERE line IN ({','.join('?' * len(part))})", part)


def passing_filters(conn: sqlite3.Connection, lines: list[int], filters: Filters
                    ) -> list[sqlite3.Row]:
    """(line, type, status, ts) of the entries at ``lines`` that pass the filters."""
    where, params = filters.sql()
    found: list[sqlite3.Row] = []
    for start in range(0, len(lines), 500):
        part = lines[start:start + 500]
        found += conn.execute(
            "SELECT e.line, e.type, e.status, e.ts FROM entries e"  # noqa: S608
            f" WHERE e.line IN ({','.join('?' * len(part))}) AND {where}",
            [*part, *params]).fetchall()
    return found


def file_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """(memory files, chunks) in the index."""
    files, chunks = conn.execute(
        "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks)").fetchone()
    return int(files), int(chunks)


def is_hidden(conn: sqlite3.Connection, entry_id: str) -> bool:
    """Hidden by a ``forget`` record (log/hides.py): in the log, left out of the index."""
    return conn.execute("SELECT 1 FROM hidden WHERE id = ?", (entry_id,)).fetchone() is not None



def current_contents(conn: sqlite3.Connection, kind: str, subject: str | None, content: str
                     ) -> list[str]:
    """The contents of the current entries of that type and subject whose length is near
    ``content``'s: the candidates for "the same entry again" (compared, spacing and case aside,
    by the caller)."""
    size = len(content)
    rows = conn.execute(
        "SELECT content FROM entries WHERE type = ? AND subject IS ? AND replaced_by IS NULL "
        "AND length(content) BETWEEN ? AND ?",
        [kind, subject, size // 2, size * 2 + 10]).fetchall()
    return [str(row[0]) for row in rows]
