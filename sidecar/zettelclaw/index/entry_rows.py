"""One log entry's row in the index: its insert, and the replacement links it makes (a
correction's ``replaces``, a fork's winner). ``index/ingest.py`` reads the log and calls
``insert`` for each entry it takes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from zettelclaw.index import counts
from zettelclaw.index.database import text_hash
from zettelclaw.log.resolve import effective_target
from zettelclaw.log.schema import EntryRecord, parse_timestamp

INSERT_ENTRY = ("INSERT INTO entries (line, id, type, status, subject, session, timestamp, ts,"
                " content, detail, replaces, supersedes, subject_name, text_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
EntryValues = tuple[Any, ...]  # INSERT_ENTRY's

Display = Callable[[str], str]  # a subject slug -> its display name
LineOf = Callable[[str], int | None]  # an entry id -> the line of the entry indexed with it


def entry_text(content: str, detail: str | None) -> str:
    """What an entry's embedding is made from."""
    return content if not detail else f"{content}\n{detail}"


def entry_text_hash(content: str, detail: str | None) -> str:
    return text_hash(entry_text(content, detail))


def insert(conn: sqlite3.Connection, number: int, entry: EntryRecord, *, display: Display,
           tally: counts.Tally, line_of: LineOf, pending: list[EntryValues] | None = None
           ) -> None:
    """Index one valid entry (the log's line ``number``) whose id is not taken yet. With
    ``pending``, its row waits there for ``flush`` unless it replaces another (whose row may be
    pending: all of them are written first)."""
    entry_id, replaces, subject = entry["id"], entry.get("replaces"), entry.get("subject")
    content, detail = entry["content"], entry.get("detail")
    target = effective_target(entry_id, replaces, lambda i: line_of(i) is not None)
    name = display(subject) if subject else None
    ts = parse_timestamp(entry["timestamp"]).timestamp()
    values = (number, entry_id, entry["type"], entry.get("status"), subject, entry["session"],
              entry["timestamp"], ts, content, detail, replaces, target, name,
              entry_text_hash(content, detail))
    tally.by_type[entry["type"]] += 1
    if pending is None:
        conn.execute(INSERT_ENTRY, values)
    else:
        pending.append(values)
    if target is not None:
        flush(conn, pending)  # the replaced entry's row may be pending
        replaced = line_of(target)
        first = conn.execute("UPDATE entries SET replaced_by = ? WHERE line = ?"
                             " AND replaced_by IS NULL", (entry_id, replaced)).rowcount
        if first:
            tally.replaced += 1
        else:
            second_replacement(conn, tally, target, replaced, (ts, entry_id))
        conn.execute("INSERT INTO terms_dirty (line) VALUES (?)", (replaced,))


def second_replacement(conn: sqlite3.Connection, tally: counts.Tally, target: str,
                       replaced: int | None, key: tuple[float, str]) -> None:
    """``entry_id`` replaces ``target``, which another entry replaced before: a fork (two
    machines corrected one entry while apart, log/resolve.py). The one with the later
    (timestamp, id) wins, whichever order the log has them in: the target points to it, and
    the other is shown as replaced by it, so search and the handoff show one version on every
    machine. A target whose replacer is not a replacement of it (a fork's loser, replaced by
    the winner) is being continued on purpose: the new entry takes it, as any first
    replacement does. ``key``: the new entry's (timestamp, id)."""
    entry_id = key[1]
    row = conn.execute("SELECT e.id, e.ts, e.line, e.supersedes FROM entries e JOIN entries t"
                       " ON t.replaced_by = e.id WHERE t.line = ?", (replaced,)).fetchone()
    if row is None or row[3] != target:
        conn.execute("UPDATE entries SET replaced_by = ? WHERE line = ?", (entry_id, replaced))
        return
    other_id, other_ts, other_line = str(row[0]), float(row[1]), int(row[2])
    if key > (other_ts, other_id):
        winner, loser_line = entry_id, other_line
        conn.execute("UPDATE entries SET replaced_by = ? WHERE line = ?", (entry_id, replaced))
        # the earlier losers of this fork follow the new winner
        conn.execute("UPDATE entries SET replaced_by = ? WHERE supersedes = ? AND"
                     " replaced_by = ? AND id != ?", (winner, target, other_id, winner))
    else:
        winner = other_id
        loser_line = conn.execute("SELECT line FROM entries WHERE id = ?",
                                  (entry_id,)).fetchone()[0]
    changed = conn.execute("UPDATE entries SET replaced_by = ? WHERE line = ?"
                           " AND replaced_by IS NULL", (winner, loser_line)).rowcount
    tally.replaced += changed
    conn.execute("INSERT INTO terms_dirty (line) VALUES (?)", (loser_line,))


def flush(conn: sqlite3.Connection, pending: list[EntryValues] | None) -> None:
    """Write the pending rows in one call (per row, the calls into SQLite cost as much again
    as the insert itself)."""
    if pending:
        conn.executemany(INSERT_ENTRY, pending)
        pending.clear()


def indexed_line(conn: sqlite3.Connection, entry_id: str) -> int | None:
    row = conn.execute("SELECT line FROM entries WHERE id = ?", (entry_id,)).fetchone()
    return None if row is None else int(row[0])
