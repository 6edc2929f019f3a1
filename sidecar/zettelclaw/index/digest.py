"""The briefing's reads of the index: current entries by type, subject and time, newest first.

Only current entries (not replaced) are read. Each function returns ``Item`` values; what the
briefing makes of them is ``briefing/sections.py``'s.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

_CURRENT = "replaced_by IS NULL"
_COLUMNS = "id, type, status, subject, session, timestamp, ts, content, detail"
_NEWEST = "ORDER BY ts DESC, line DESC"
_FORKS = ("SELECT " + ", ".join(f"{side}.{c.strip()}" for side in ("w", "l")  # noqa: S608
                                 for c in _COLUMNS.split(","))
          + " FROM entries l JOIN entries w ON w.id = l.replaced_by"
          " WHERE l.supersedes IS NOT NULL AND w.supersedes = l.supersedes"
          " AND w.replaced_by IS NULL ORDER BY w.ts DESC, w.line DESC LIMIT ?")
SORT_AT_MOST = 5000  # a type with more items is read newest first from the time index


@dataclass(frozen=True)
class Item:
    id: str
    type: str
    status: str | None
    subject: str | None
    session: str
    timestamp: str
    ts: float
    content: str
    detail: str | None


def _item(row: sqlite3.Row) -> Item:
    return Item(row["id"], row["type"], row["status"], row["subject"], row["session"],
                row["timestamp"], row["ts"], row["content"], row["detail"])


def of_type(conn: sqlite3.Connection, kind: str, limit: int, *, since: float | None = None,
            status: str | None = None) -> tuple[tuple[Item, ...], int]:
    """Current entries of type ``kind`` (since a time, with a status), newest first: at most
    ``limit`` of them, and how many there are in all.

    ``+type`` keeps SQLite off the type index and on the time index: for a time window (a few
    days of entries, however many of that type the log holds), and to read many items newest
    first and stop early rather than sort every one of them.
    """
    more = ""
    params: list[object] = [kind]
    if since is not None:
        more += " AND ts >= ?"
        params.append(since)
    if status is not None:
        more += " AND status = ?"
        params.append(status)
    first = "+" if since is not None else ""
    total = conn.execute(
        f"SELECT count(*) FROM entries WHERE {_CURRENT} AND {first}type = ?{more}",  # noqa: S608
        params).fetchone()[0]
    plus = "+" if since is not None or total > SORT_AT_MOST else ""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM entries WHERE {_CURRENT} AND {plus}type = ?{more}"  # noqa: S608
        f" {_NEWEST} LIMIT ?", [*params, limit]).fetchall()
    return tuple(_item(r) for r in rows), total


def with_subject_since(conn: sqlite3.Connection, since: float) -> Iterator[Item]:
    """Current entries about a subject since ``since``, newest first."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM entries WHERE {_CURRENT} AND subject IS NOT NULL"  # noqa: S608
        f" AND ts >= ? {_NEWEST}", (since,))
    return (_item(row) for row in rows)


def since(conn: sqlite3.Connection, when: float, limit: int) -> list[Item]:
    """Current entries since ``when``, newest first (read from the time index)."""
    return [_item(r) for r in conn.execute(
        f"SELECT {_COLUMNS} FROM entries WHERE {_CURRENT} AND ts >= ?"  # noqa: S608
        f" {_NEWEST} LIMIT ?", (when, limit))]


def subjects_since(conn: sqlite3.Connection, when: float) -> set[str]:
    """The subjects with a current entry since ``when``."""
    return {row[0] for row in conn.execute(
        f"SELECT DISTINCT subject FROM entries WHERE {_CURRENT} AND ts >= ?",  # noqa: S608
        (when,))}


def newest_of_subject(conn: sqlite3.Connection, slug: str) -> Item | None:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM entries WHERE {_CURRENT} AND subject = ?"  # noqa: S608
        f" {_NEWEST} LIMIT 1", (slug,)).fetchone()
    return None if row is None else _item(row)


def decisions_and_facts(conn: sqlite3.Connection, slug: str, *, before: float | None = None,
                        since: float | None = None, limit: int) -> tuple[Item, ...]:
    """A subject's current decisions and facts before or since a time, newest first."""
    when, at = ("ts < ?", before) if before is not None else ("ts >= ?", since)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM entries WHERE {_CURRENT} AND subject = ?"  # noqa: S608
        f" AND type IN ('decision', 'fact') AND {when} {_NEWEST} LIMIT ?", (slug, at, limit))
    return tuple(_item(row) for row in rows)


def forks(conn: sqlite3.Connection, limit: int) -> tuple[tuple[Item, Item], ...]:
    """Open forks, newest first: (the correction shown, another correction of the same entry
    that it wins over), while the shown one is current (log/resolve.py)."""
    rows = conn.execute(_FORKS, (limit,))
    width = len(_COLUMNS.split(","))
    return tuple((Item(*row[:width]), Item(*row[width:])) for row in rows)
