"""index/read_budget.py: SQLite reads stop at their time budget, and only then; ``read_now``
reads only with the index free and within the budget."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import held_by_another_thread
from zettelclaw.index import read_budget
from zettelclaw.index.database import Index
from zettelclaw.index.read_budget import BudgetSpent, read_now, time_budget

COUNT_TO = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) " \
           "SELECT count(*) FROM n"


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(":memory:")
    yield c
    c.close()


class Clock:
    """A clock that says 0 when the budget starts, then ``later``: the budget's outcome does
    not depend on the machine."""

    def __init__(self, later: float) -> None:
        self.times = iter([0.0])
        self.later = later

    def __call__(self) -> float:
        return next(self.times, self.later)


def test_a_read_past_its_budget_stops(conn: sqlite3.Connection) -> None:
    with pytest.raises(BudgetSpent, match="budget of 3 ms"), \
            time_budget(conn, 0.003, Clock(later=1.0)):
        conn.execute(COUNT_TO, (1_000_000,)).fetchone()


def test_a_read_within_its_budget_answers(conn: sqlite3.Connection) -> None:
    with time_budget(conn, 0.003, Clock(later=0.0)):  # time stands still: never spent
        assert conn.execute(COUNT_TO, (100_000,)).fetchone() == (100_000,)


def test_the_budget_ends_with_the_block(conn: sqlite3.Connection) -> None:
    with pytest.raises(BudgetSpent), time_budget(conn, 0.003, Clock(later=1.0)):
        conn.execute(COUNT_TO, (100_000,)).fetchone()
    assert conn.execute(COUNT_TO, (100_000,)).fetchone() == (100_000,)


def test_a_real_clock_stops_a_long_read(conn: sqlite3.Connection) -> None:
    """Counting to 10^9 takes minutes; the budget stops it (how soon is bench/'s business)."""
    with pytest.raises(BudgetSpent), time_budget(conn, 0.001):
        conn.execute(COUNT_TO, (1_000_000_000,)).fetchone()


def test_other_errors_are_not_taken_for_a_spent_budget(conn: sqlite3.Connection) -> None:
    with pytest.raises(sqlite3.OperationalError, match="no such table"), \
            time_budget(conn, 0.003, Clock(later=0.0)):
        conn.execute("SELECT * FROM nothing_here")


def test_read_now_reads_only_with_the_index_free_and_within_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = Index(tmp_path / "index.sqlite")
    count = "SELECT count(*) FROM entries"

    def read() -> int:
        return int(index.conn.execute(count).fetchone()[0])

    try:
        assert read_now(index, 0.003, read) == 0
        with held_by_another_thread(index):
            assert read_now(index, 0.003, read) is None, "another thread holds the index"
        monkeypatch.setattr(read_budget, "STEPS", 1)
        assert read_now(index, -1.0, read) is None, "the budget is spent"
        assert read_now(index, 0.003, read) == 0, "and the lock was given back"
    finally:
        index.close()
