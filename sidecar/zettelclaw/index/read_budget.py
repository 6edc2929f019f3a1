"""A time budget for SQLite reads, for work the event loop does itself.

A read the loop runs without a thread (``Searcher.search_now``, ``methods/memory.py``'s
``entry_now``; both through ``read_now``) must not hold it for long:
its SQLite reads are interrupted once the budget is spent (a progress handler, asked every
``STEPS`` virtual-machine instructions, a few tens of microseconds), and ``BudgetSpent`` tells
the caller to run the work in a thread instead. Reads only: an interrupted statement leaves
nothing behind, and the handler is removed when the block ends.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from zettelclaw.index.database import Index

T = TypeVar("T")

STEPS = 2000  # SQLite virtual-machine instructions between two looks at the clock


class BudgetSpent(Exception):
    """The reads took longer than their budget; what they were for was not answered."""


@contextmanager
def time_budget(conn: sqlite3.Connection, seconds: float,
                clock: Callable[[], float] = time.perf_counter) -> Iterator[None]:
    """SQLite work on ``conn`` in the block stops with ``BudgetSpent`` after ``seconds``.
    The caller holds ``conn`` alone meanwhile (the handler is the connection's)."""
    deadline = clock() + seconds
    conn.set_progress_handler(lambda: clock() > deadline, STEPS)
    try:
        yield
    except sqlite3.OperationalError as exc:
        if str(exc) != "interrupted":
            raise
        raise BudgetSpent(f"SQLite reads past their budget of {seconds * 1000:g} ms") from exc
    finally:
        conn.set_progress_handler(None, STEPS)


def read_now(index: Index, seconds: float, read: Callable[[], T | None]) -> T | None:
    """``read()`` on this thread, if the index is free (its lock taken without waiting) and
    its SQLite reads fit ``seconds``; else None, and the caller hands the read to a thread."""
    if not index.lock.acquire(blocking=False):  # a write, or another thread's read
        return None
    try:
        with time_budget(index.conn, seconds):
            return read()
    except BudgetSpent:
        return None
    finally:
        index.lock.release()
