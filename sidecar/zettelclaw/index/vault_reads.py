"""The reads of the Markdown view (``vault/``): entries after a line, in log order, and
entries by id.

Both go through ``entries.Filters.sql()``, the index's one definition of which entries a reader
sees: a state that takes entries out of every view (hidden entries, to come) is added there and
drops out of the vault with no change here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from zettelclaw.index.entries import Filters

VAULT_COLUMNS = ("line, id, type, status, subject, session, timestamp, content, supersedes,"
                 " replaced_by")


def entries_after(conn: sqlite3.Connection, line: int, filters: Filters | None = None,
                  batch: int = 5000) -> Iterator[sqlite3.Row]:
    """The entries past log line ``line``, replaced ones included (unless ``filters`` say
    otherwise), in log order, read in batches (a 100k-entry log is not one list of rows)."""
    where, params = (filters or Filters(include_replaced=True)).sql()
    while True:
        rows = conn.execute(
            f"SELECT {VAULT_COLUMNS} FROM entries e WHERE e.line > ? AND {where}"  # noqa: S608
            " ORDER BY e.line LIMIT ?", [line, *params, batch]).fetchall()
        yield from rows
        if len(rows) < batch:
            return
        line = rows[-1]["line"]


def entries_by_id(conn: sqlite3.Connection, ids: list[str]) -> dict[str, sqlite3.Row]:
    """The entries with these ids (absent ones left out), whatever their state."""
    found: dict[str, sqlite3.Row] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        for row in conn.execute(f"SELECT {VAULT_COLUMNS} FROM entries WHERE id IN"  # noqa: S608
                                f" ({','.join('?' * len(part))})", part):
            found[row["id"]] = row
    return found


def last_line(conn: sqlite3.Connection) -> int:
    """The last log line the index holds an entry for (0: none)."""
    return int(conn.execute("SELECT coalesce(max(line), 0) FROM entries").fetchone()[0])


def epoch(conn: sqlite3.Connection) -> str | None:
    """The index's epoch: new whenever it starts over (the log rewritten or replaced, the index
    rebuilt), when line numbers may no longer mean what they meant."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'terms_epoch'").fetchone()
    return None if row is None else str(row[0])


def hidden_ids(conn: sqlite3.Connection) -> set[str]:
    """The ids of the entries hidden now (log/hides.py)."""
    return {str(row[0]) for row in conn.execute("SELECT id FROM hidden")}
