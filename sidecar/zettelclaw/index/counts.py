"""How many entries the index holds, by type, and how many were replaced: kept, not counted.

``status`` shows these. Counted, they are scans: at a million entries the count by type reads
the whole type index and the replaced count the whole table, 0.4 and 0.3 s with a cold page
cache, holding the index while they run (a status poll stalled a cold build by a third, and
any search waited behind it). So the ingest keeps them in ``meta``, added to in the same
transaction as the entries they count, and a reset sets them to zero with the rest. An index
made before they were kept has them counted once, under the write lock, when it is opened.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from dataclasses import dataclass, field

import orjson

KEY = "counts"


@dataclass
class Tally:
    """What one batch of the ingest adds."""

    by_type: Counter[str] = field(default_factory=Counter)
    replaced: int = 0  # entries replaced for the first time


def load(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
    """(entries by type, entries replaced)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    if row is None:  # an index from before counts were kept, not opened by this version yet
        return count(conn)
    stored = orjson.loads(row[0])
    return {t: n for t, n in stored["byType"].items() if n}, int(stored["replaced"])


def count(conn: sqlite3.Connection) -> tuple[dict[str, int], int]:
    """The same, by scanning (the check, and an index from before)."""
    by_type = {str(t): int(n) for t, n in
               conn.execute("SELECT type, count(*) FROM entries GROUP BY type")}
    replaced = conn.execute(
        "SELECT count(*) FROM entries WHERE replaced_by IS NOT NULL").fetchone()[0]
    return by_type, int(replaced)


def store(conn: sqlite3.Connection, by_type: dict[str, int], replaced: int) -> None:
    """Set them (in the caller's write transaction)."""
    value = orjson.dumps({"byType": dict(sorted(by_type.items())), "replaced": replaced})
    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (KEY, value.decode()))


def add(conn: sqlite3.Connection, tally: Tally) -> None:
    """Add one batch (in its write transaction)."""
    if not tally.by_type and not tally.replaced:
        return
    by_type, replaced = load(conn)
    for kind, n in tally.by_type.items():
        by_type[kind] = by_type.get(kind, 0) + n
    store(conn, by_type, replaced + tally.replaced)


def kept(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM meta WHERE key = ?", (KEY,)).fetchone() is not None
