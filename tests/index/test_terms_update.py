"""index/terms_update.py: one writer session over the term index's shards.

Covers: each line's document is in its place (its number's current shard, or replaced shard once
replaced), and every shard's marker says how far it was fed; a crash between the shards'
commits leaves one committed and the others behind, and the next update gives each shard only
what it lacks (no line twice, none missing); a shard that lost its documents (deleted
directory) is filled again from line 1 while the other is left as it is; a shard given nothing
has its marker brought forward every MARKER_LAG lines; an entry replaced behind its new shard's
marker moves once.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest
import tantivy

from tests.conftest import entry
from zettelclaw.home import Home
from zettelclaw.index import terms_update
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.terms import TermIndex
from zettelclaw.index.terms_update import Update

Write = Callable[..., list[dict[str, Any]]]


def sync(index: Index, terms: TermIndex, home: Home) -> None:
    with terms.updating(index) as update:
        Ingester(index, home.log).catch_up(lambda done, total: update.pull())


def agrees(index: Index, terms: TermIndex) -> None:
    """Every entry has exactly one document, in its shard (``documents`` gives a line found
    in another shard as its negative), replaced exactly when SQLite says so."""
    with index.read() as conn:
        expected = [(row[0], row[1] is not None) for row in conn.execute(
            "SELECT line, replaced_by FROM entries ORDER BY line")]
    assert terms.documents() == expected


def lines(terms: TermIndex, word: str) -> list[int]:
    return sorted(hit.line for hit in terms.search(terms.tokens([word]), every=True,
                                                   filters=Filters(), limit=1000))


def test_lines_are_split_over_the_shards(index: Index, home: Home, write_log: Write) -> None:
    write_log(*[entry(content=f"kayak {n}") for n in range(10)])
    terms = TermIndex(home.terms)
    sync(index, terms, home)
    agrees(index, terms)
    # every shard's marker says it was given all its lines up to 10
    assert [shard.reach()[1] for shard in terms.shards + terms.replaced] == [10, 10, 10, 10]
    assert lines(terms, "kayak") == list(range(1, 11))


def test_a_crash_between_the_shards_commits(index: Index, home: Home, write_log: Write,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(*[entry(content=f"kayak {n}") for n in range(4)])
    terms = TermIndex(home.terms)
    sync(index, terms, home)
    old, = write_log(entry(content="ledger on mysql"))
    write_log(*[entry(content=f"kayak {n}") for n in range(4, 10)])
    write_log(entry(content="ledger on postgres", replaces=old["id"]))

    updates: list[Update] = []
    real_commit, real_writer_commit = Update.commit, terms_update._commit

    def kept(self: Update) -> None:
        updates.append(self)
        real_commit(self)

    def first_shard_only(writer: tantivy.IndexWriter) -> None:  # the others' never happen
        assert updates[-1].writers[1] is not None  # both current shards had work
        if writer is not updates[-1].writers[0]:
            raise RuntimeError("killed between the shards' commits")
        real_writer_commit(writer)

    with monkeypatch.context() as patch:
        patch.setattr(Update, "commit", kept)
        patch.setattr(terms_update, "_commit", first_shard_only)
        with pytest.raises(RuntimeError):
            sync(index, terms, home)
    even = [n for n in range(1, 13) if n % 2 == 0]
    assert lines(terms, "kayak") == [1, 2, 3, 4] + [n for n in even if 5 <= n <= 11]
    assert lines(terms, "ledger") == [12]  # line 12 is even: committed
    with index.read() as conn:  # the queued change waits for both commits
        assert conn.execute("SELECT count(*) FROM terms_dirty").fetchone()[0] == 1
    sync(index, terms, home)
    agrees(index, terms)
    assert lines(terms, "kayak") == [n for n in range(1, 12) if n != 5]
    assert lines(terms, "ledger") == [12]


def test_a_lost_shard_is_filled_again(index: Index, home: Home, write_log: Write) -> None:
    write_log(*[entry(content=f"kayak {n}") for n in range(9)])
    sync(index, TermIndex(home.terms), home)
    shutil.rmtree(TermIndex(home.terms).shards[1].path)
    terms = TermIndex(home.terms)
    assert [shard.reach()[1] for shard in terms.shards] == [9, 0]  # fed to 9, and nothing
    sync(index, terms, home)
    agrees(index, terms)
    assert lines(terms, "kayak") == list(range(1, 10))


def test_a_shard_given_nothing_has_its_marker_brought_forward(
        index: Index, home: Home, write_log: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """The replaced shards get no documents while nothing is replaced: their markers move on
    every MARKER_LAG lines, so that an update does not read the whole log again to skip it."""
    monkeypatch.setattr(terms_update, "MARKER_LAG", 5)
    terms = TermIndex(home.terms)
    write_log(*[entry(content=f"kayak {n}") for n in range(3)])
    sync(index, terms, home)
    assert [shard.reach()[1] for shard in terms.replaced] == [3, 3]  # marked when made
    write_log(*[entry(content=f"kayak {n}") for n in range(10)])
    sync(index, terms, home)
    assert [shard.reach()[1] for shard in terms.replaced] == [13, 13]  # 10 behind: moved on
    write_log(*[entry(content=f"kayak {n}") for n in range(2)])
    sync(index, terms, home)
    assert [shard.reach()[1] for shard in terms.replaced] == [13, 13]  # 2 behind: left
    assert [shard.reach()[1] for shard in terms.shards] == [15, 15]
    agrees(index, terms)


def test_an_entry_replaced_behind_its_shards_marker_moves_once(
        index: Index, home: Home, write_log: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """Line 7 is in the current shard (fed to 15); the replaced shard's marker says 3. The
    change deletes it from both, and the update's reading from line 3 adds it where it now
    belongs: once, whatever else it reads again on the way."""
    monkeypatch.setattr(terms_update, "MARKER_LAG", 1000)
    terms = TermIndex(home.terms)
    written = write_log(*[entry(content=f"kayak {n}") for n in range(3)])
    sync(index, terms, home)
    written += write_log(*[entry(content=f"kayak {n}") for n in range(3, 15)])
    sync(index, terms, home)
    assert [shard.reach()[1] for shard in terms.replaced] == [3, 3]
    write_log(entry(content="canoe", replaces=written[6]["id"]))  # line 16 replaces line 7
    sync(index, terms, home)
    agrees(index, terms)
    assert lines(terms, "kayak") == [n for n in range(1, 16) if n != 7]
    replaced = terms.search(terms.tokens(["kayak"]), every=True,
                            filters=Filters(include_replaced=True), limit=100)
    assert sorted(hit.line for hit in replaced) == list(range(1, 16))
