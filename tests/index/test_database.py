"""index/database.py: the index file's schema, and throwing it away when it cannot be trusted.

Covers: a new file gets the schema and its version, owner-only modes; reopening keeps what was
indexed; an unreadable file (garbage bytes, a garbage WAL beside it), a file of another schema
version, another program's SQLite file, a meta table without a version: all rebuilt
transparently, so the next catch-up indexes the whole log again; write transactions roll back on
errors and exclude other connections; meta round trip.
"""

from __future__ import annotations

import re
import sqlite3
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from zettelclaw.home import Home
from zettelclaw.index import counts
from zettelclaw.index.database import ADDED_INDEXES, SCHEMA_VERSION, Index, has_table
from zettelclaw.index.ingest import Ingester


@pytest.fixture
def opened(home: Home) -> Iterator[Callable[[], Index]]:
    """Open the home's index (as many times as a test likes); all are closed at the end."""
    indexes: list[Index] = []

    def open_index() -> Index:
        indexes.append(Index(home.index))
        return indexes[-1]

    yield open_index
    for index in indexes:
        index.close()


def count(index: Index, table: str = "entries") -> int:
    with index.read() as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608


def tables(index: Index) -> set[str]:
    with index.read() as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_a_new_index_has_the_schema(opened: Callable[[], Index]) -> None:
    index = opened()
    assert {"meta", "entries", "invalid_lines", "terms_dirty"} <= tables(index)
    with index.read() as conn:
        assert Index._version(conn) == SCHEMA_VERSION
        meta = index.meta(conn)
        assert re.fullmatch(r"[0-9a-f]{32}", str(meta.pop("terms_epoch")))  # names this build
        assert meta == {"schema_version": SCHEMA_VERSION,
                        "counts": '{"byType":{},"replaced":0}'}
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_index_files_are_the_owners_alone(home: Home, opened: Callable[[], Index],
                                          write_log: Callable[..., Any]) -> None:
    write_log(entry())
    index = opened()
    Ingester(index, home.log).catch_up()
    files = [p for p in home.root.iterdir() if p.name.startswith("index.sqlite")]
    assert home.index in files
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_reopening_keeps_the_index(home: Home, opened: Callable[[], Index],
                                   write_log: Callable[..., Any]) -> None:
    write_log(entry(), b"junk\n", entry())
    first = opened()
    Ingester(first, home.log).catch_up()
    first.close()
    second = opened()
    assert (count(second), count(second, "invalid_lines")) == (2, 1)
    assert Ingester(second, home.log).catch_up().entries == 0


def test_a_second_connection_does_not_wipe_the_first(home: Home, opened: Callable[[], Index],
                                                     write_log: Callable[..., Any]) -> None:
    """Two processes (a sidecar, the CLI) open the same file."""
    write_log(entry(), entry())
    first = opened()
    Ingester(first, home.log).catch_up()
    second = opened()
    assert count(second) == 2
    assert count(first) == 2


def rebuilt_transparently(home: Home, open_index: Callable[[], Index],
                          written: list[dict[str, Any]]) -> None:
    index = open_index()
    with index.read() as conn:
        assert Index._version(conn) == SCHEMA_VERSION
    assert count(index) == 0
    report = Ingester(index, home.log).catch_up()
    assert report.entries == len(written)
    with index.read() as conn:
        assert [r[0] for r in conn.execute("SELECT id FROM entries ORDER BY line")] == [
            e["id"] for e in written]


@pytest.mark.parametrize("garbage", [
    b"this is not an SQLite database at all \x00\xff" * 100,
    b"SQLite format 3\x00" + b"\xff" * 4000,  # the right magic, a broken header
])
def test_an_unreadable_index_file_is_rebuilt(home: Home, opened: Callable[[], Index],
                                             write_log: Callable[..., Any],
                                             garbage: bytes) -> None:
    written = write_log(entry(), entry())
    home.index.write_bytes(garbage)
    rebuilt_transparently(home, opened, written)


def test_a_garbage_wal_beside_an_unreadable_file_is_removed(
        home: Home, opened: Callable[[], Index], write_log: Callable[..., Any]) -> None:
    written = write_log(entry())
    home.index.write_bytes(b"\x00garbage" * 512)
    Path(f"{home.index}-wal").write_bytes(b"\xffwal garbage" * 512)
    rebuilt_transparently(home, opened, written)


def test_an_empty_index_file_is_initialised(home: Home, opened: Callable[[], Index],
                                            write_log: Callable[..., Any]) -> None:
    written = write_log(entry())
    home.index.write_bytes(b"")
    rebuilt_transparently(home, opened, written)


def test_an_index_of_another_schema_version_is_rebuilt(
        home: Home, opened: Callable[[], Index], write_log: Callable[..., Any]) -> None:
    written = write_log(entry(), entry(), entry())
    old = opened()
    Ingester(old, home.log).catch_up()
    with old.write() as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                     (SCHEMA_VERSION + 1,))
    old.close()
    rebuilt_transparently(home, opened, written)


def test_a_meta_table_without_a_version_is_rebuilt(
        home: Home, opened: Callable[[], Index], write_log: Callable[..., Any]) -> None:
    written = write_log(entry())
    old = opened()
    Ingester(old, home.log).catch_up()
    with old.write() as conn:
        conn.execute("DELETE FROM meta WHERE key = 'schema_version'")
    old.close()
    rebuilt_transparently(home, opened, written)


def test_another_programs_sqlite_file_is_rebuilt(home: Home, opened: Callable[[], Index],
                                                 write_log: Callable[..., Any]) -> None:
    written = write_log(entry(), entry())
    conn = sqlite3.connect(home.index)
    conn.execute("CREATE TABLE entries (something_else TEXT)")
    conn.execute("INSERT INTO entries VALUES ('x')")
    conn.commit()
    conn.close()
    rebuilt_transparently(home, opened, written)


def test_a_write_rolls_back_on_error(opened: Callable[[], Index]) -> None:
    index = opened()

    class Boom(Exception):
        pass

    def failing_write() -> None:
        with index.write() as conn:
            Index.set_meta(conn, {"offset": 123})
            conn.execute("INSERT INTO invalid_lines VALUES (1, 'r', 'e')")
            raise Boom

    with pytest.raises(Boom):
        failing_write()
    with index.read() as conn:
        assert "offset" not in index.meta(conn)
    assert count(index, "invalid_lines") == 0


def test_a_write_excludes_other_connections(home: Home, opened: Callable[[], Index]) -> None:
    index = opened()
    other = sqlite3.connect(home.index, timeout=0, isolation_level=None)
    try:
        with index.write(), pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again once the write is over
        other.execute("ROLLBACK")
    finally:
        other.close()


def test_meta_round_trip(opened: Callable[[], Index]) -> None:
    index = opened()
    with index.write() as conn:
        Index.set_meta(conn, {"offset": 10, "head_hash": "abc"})
        Index.set_meta(conn, {"offset": 20})
    with index.read() as conn:
        meta = index.meta(conn)
        meta.pop("terms_epoch")
        meta.pop("counts")
        assert meta == {"schema_version": SCHEMA_VERSION, "offset": 20, "head_hash": "abc"}


def test_an_index_another_process_is_creating_is_waited_for_not_deleted(
        tmp_path: Path) -> None:
    """The CLI and a sidecar opening a new index at once: the one that finds the file still
    empty (the other's schema not yet committed) must wait for it, not delete the file."""
    import threading

    from zettelclaw.index.database import SCHEMA, SCHEMA_VERSION

    path = tmp_path / "index.sqlite"
    creator = sqlite3.connect(path, isolation_level=None)
    creator.execute("PRAGMA journal_mode=WAL")
    creator.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA.split(";\n"):
        if statement.strip():
            creator.execute(statement)
    creator.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
    inode = path.stat().st_ino
    opened: list[Index] = []
    opener = threading.Thread(target=lambda: opened.append(Index(path)))
    opener.start()
    opener.join(0.3)  # it finds an empty file: it must not touch it while the creator writes
    creator.execute("COMMIT")
    creator.close()
    opener.join(30)
    assert opened, "the opener finished"
    assert path.stat().st_ino == inode, "the file being created was replaced"
    with opened[0].read() as conn:
        assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0
    opened[0].close()


def test_an_index_from_before_kept_counts_has_them_counted_at_open(
        home: Home, opened: Callable[[], Index]) -> None:
    index = opened()
    with index.write() as conn:
        conn.execute("INSERT INTO entries (line, id, type, session, timestamp, ts, content,"
                     " text_hash, replaced_by) VALUES (1, 'a', 'fact', 's', 't', 0, 'x', 'h',"
                     " 'b'), (2, 'b', 'decision', 's', 't', 0, 'y', 'h', NULL)")
        conn.execute("DELETE FROM meta WHERE key = 'counts'")
    with index.read() as conn:  # read before the upgrade: counted
        assert counts.load(conn) == ({"fact": 1, "decision": 1}, 1)
    index.close()
    reopened = opened()
    with reopened.read() as conn:
        assert counts.kept(conn), "stored at open, under the write lock"
        assert counts.load(conn) == ({"decision": 1, "fact": 1}, 1)


def test_an_index_without_the_added_indexes_gets_them_at_open(
        home: Home, opened: Callable[[], Index]) -> None:
    index = opened()
    with index.write() as conn:
        for name in ADDED_INDEXES:
            conn.execute(f"DROP INDEX {name}")
    index.close()
    reopened = opened()
    with reopened.read() as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert set(ADDED_INDEXES) <= names


def test_an_index_of_schema_4_gets_its_chunks_words_again_and_keeps_the_rest(
        home: Home, opened: Callable[[], Index], write_log: Callable[..., Any]) -> None:
    """Schema 5 only made symbols (emoji) words of the Markdown chunks (fts.FTS_TOKENIZE): an
    index of 4 is changed in place, its entries and embedding vectors kept (a rebuild would
    embed the whole log again)."""
    write_log(entry(), entry())
    old = opened()
    Ingester(old, home.log).catch_up()
    with old.write() as conn:
        conn.execute("DROP TABLE chunks_fts")
        conn.execute("CREATE VIRTUAL TABLE chunks_fts USING fts5 (text, content='chunks',"
                     " content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')")
        conn.execute("INSERT INTO chunks VALUES (7, 'memory/food.md', 1, 3, 'Flan🍮 on Sundays',"
                     " 'h')")
        conn.execute("INSERT INTO chunks_fts (rowid, text) VALUES (7, 'Flan🍮 on Sundays')")
        conn.execute("INSERT INTO vectors VALUES ('m', 'h', x'00')")
        conn.execute("UPDATE meta SET value = 4 WHERE key = 'schema_version'")
        epoch = old.meta(conn)["terms_epoch"]
    old.close()
    index = opened()
    with index.read() as conn:
        assert Index._version(conn) == SCHEMA_VERSION == 5
        assert index.meta(conn)["terms_epoch"] == epoch
        assert count(index) == 2
        assert count(index, "vectors") == 1
        for word in ("🍮", "flan", "sunday"):
            assert conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?",
                                (f"\"{word}\"",)).fetchall()[0][0] == 7


def test_an_index_of_schema_4_as_released_gets_what_was_added_since(
        home: Home, opened: Callable[[], Index], write_log: Callable[..., Any]) -> None:
    """Schema 4 was released before the ``hidden`` table (forget), the ``text_parts`` table
    (semantic search's sentences) and the added indexes: an index of 4 changed in place to 5
    gets them too, as one of 5 does at open. Without, the first catch-up that starts over (the
    log rewritten) stopped the sidecar's start: "no such table: hidden" (a data directory
    made at caac987)."""
    write_log(entry(), entry())
    old = opened()
    Ingester(old, home.log).catch_up()
    with old.write() as conn:
        conn.execute("DROP TABLE hidden")
        conn.execute("DROP TABLE text_parts")
        for name in ADDED_INDEXES:
            conn.execute(f"DROP INDEX {name}")
        conn.execute("UPDATE meta SET value = 4 WHERE key = 'schema_version'")
    old.close()
    index = opened()
    with index.read() as conn:
        assert Index._version(conn) == SCHEMA_VERSION
        assert has_table(conn, "hidden")
        assert has_table(conn, "text_parts")
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert set(ADDED_INDEXES) <= names
    Ingester(index, home.log).reset()  # what a rewritten log does at the next catch-up
    Ingester(index, home.log).catch_up()
    assert count(index) == 2
