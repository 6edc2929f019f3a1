"""index/subject_counts.py: what ``subjects.list`` shows per subject, kept by SQLite triggers,
against the same figures counted from the rows. tests/index/test_ingest.py checks them after every
catch-up it builds (ordinary, batch by batch, large builds); these are the other ways an entry
changes: a replacement by another subject's entry, a rename, a rewritten log, an index made
before they were kept."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from tests.direct import Direct
from zettelclaw.home import Home
from zettelclaw.index import subject_counts
from zettelclaw.index.database import Index
from zettelclaw.protocol.params import SubjectsRenameParams


@pytest.fixture
def memory(home: Home, workspace: Path) -> Iterator[Direct]:
    m = Direct.open(home, workspace)
    yield m
    m.close()


def kept(memory: Direct) -> dict[str, tuple[int, str]]:
    with memory.index.read() as conn:
        found = subject_counts.load(conn)
        assert found == subject_counts.count(conn), "kept, as counted"
        return found


def test_a_subject_s_newest_replaced_by_another_subject_s_entry(
        memory: Direct, write_log: Callable[..., Any]) -> None:
    older = entry(subject="garden", timestamp="2026-01-05T10:00:00Z")
    newest = entry(subject="garden", timestamp="2026-01-06T10:00:00Z")
    write_log(older, newest, entry(subject="kitchen", timestamp="2026-01-07T10:00:00Z"))
    memory.sync()
    assert kept(memory) == {"garden": (2, "2026-01-06T10:00:00Z"),
                            "kitchen": (1, "2026-01-07T10:00:00Z")}
    write_log(entry(subject="kitchen", replaces=newest["id"], timestamp="2026-01-08T10:00:00Z"))
    memory.sync()
    assert kept(memory) == {"garden": (1, "2026-01-05T10:00:00Z"),
                            "kitchen": (2, "2026-01-08T10:00:00Z")}
    write_log(entry(replaces=older["id"], timestamp="2026-01-09T10:00:00Z"))  # no subject
    memory.sync()
    assert kept(memory) == {"kitchen": (2, "2026-01-08T10:00:00Z")}  # garden has none left
    with memory.index.read() as conn:
        assert conn.execute("SELECT count(*) FROM subject_stats").fetchone()[0] == 1


def test_a_rename_moves_the_counts_and_a_merge_adds_them(
        memory: Direct, write_log: Callable[..., Any]) -> None:
    write_log(entry(subject="old-name", timestamp="2026-01-05T10:00:00Z"),
              entry(subject="other", timestamp="2026-01-06T10:00:00Z"),
              entry(subject="old-name", timestamp="2026-01-04T10:00:00Z"))
    memory.sync()

    def rename(old: str, new: str) -> None:
        memory.subjects_rename(SubjectsRenameParams.model_validate({"from": old, "to": new}))

    rename("old-name", "new-name")
    assert kept(memory) == {"new-name": (2, "2026-01-04T10:00:00Z"),  # the newest by log line
                            "other": (1, "2026-01-06T10:00:00Z")}
    rename("other", "new-name")
    assert kept(memory) == {"new-name": (3, "2026-01-04T10:00:00Z")}


def test_a_rewritten_log_is_counted_from_its_start(
        memory: Direct, home: Home, write_log: Callable[..., Any]) -> None:
    write_log(entry(subject="garden"), entry(subject="kitchen"))
    memory.sync()
    home.log.write_bytes(b"")
    write_log(entry(subject="kitchen", timestamp="2026-03-01T10:00:00Z"))
    memory.sync()
    assert kept(memory) == {"kitchen": (1, "2026-03-01T10:00:00Z")}


def test_an_index_from_before_is_counted_once_when_opened(
        home: Home, workspace: Path, write_log: Callable[..., Any]) -> None:
    write_log(entry(subject="garden"), entry(subject="garden", timestamp="2026-03-01T10:00:00Z"))
    memory = Direct.open(home, workspace)
    memory.sync()
    with memory.index.write() as conn:  # as an index made before this version
        for name in ("subject_stats_inserted", "subject_stats_replaced", "subject_stats_renamed"):
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DROP TABLE subject_stats")
    memory.close()
    index = Index(home.index)
    try:
        with index.read() as conn:
            assert subject_counts.kept(conn)
            assert subject_counts.load(conn) == {"garden": (2, "2026-03-01T10:00:00Z")}
    finally:
        index.close()


def test_a_newest_not_yet_found_again_is_looked_up(memory: Direct,
                                                   write_log: Callable[..., Any]) -> None:
    """A large build stopped before its end leaves a subject's newest unknown (the subject
    index was dropped); ``load`` finds it, the next batch writes it."""
    write_log(entry(subject="garden", timestamp="2026-01-05T10:00:00Z"),
              entry(subject="garden", timestamp="2026-01-06T10:00:00Z"))
    memory.sync()
    with memory.index.write() as conn:
        conn.execute("UPDATE subject_stats SET last_line = NULL")
    assert kept(memory) == {"garden": (2, "2026-01-06T10:00:00Z")}
    write_log(entry(subject="kitchen"))
    memory.sync()
    with memory.index.read() as conn:
        assert conn.execute("SELECT count(*) FROM subject_stats WHERE last_line IS NULL"
                            ).fetchone()[0] == 0
