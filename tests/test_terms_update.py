"""index/terms_update.py: one writer session over the term index's shards.

Covers: each line's document is in its shard (line modulo the shards); a crash between the
shards' commits leaves the first committed and the second behind, and the next update gives
each shard only what it lacks (no line twice, none missing); a shard that lost its documents
(deleted directory) is filled again from line 1 while the other is left as it is.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import entry
from zettelclaw.home import Home
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
    assert [shard.reach()[1] for shard in terms.shards] == [10, 9]
    assert lines(terms, "kayak") == list(range(1, 11))


def test_a_crash_between_the_shards_commits(index: Index, home: Home, write_log: Write,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    write_log(*[entry(content=f"kayak {n}") for n in range(4)])
    terms = TermIndex(home.terms)
    sync(index, terms, home)
    old, = write_log(entry(content="ledger on mysql"))
    write_log(*[entry(content=f"kayak {n}") for n in range(4, 10)])
    write_log(entry(content="ledger on postgres", replaces=old["id"]))

    def first_only(self: Update) -> None:
        first = self.writers[0]
        assert first is not None
        assert self.writers[1] is not None  # both shards had work
        first.commit()
        raise RuntimeError("killed between the shards' commits")

    with monkeypatch.context() as patch:
        patch.setattr(Update, "commit", first_only)
        with pytest.raises(RuntimeError):
            sync(index, terms, home)
    even = [n for n in range(1, 13) if n % 2 == 0]
    assert lines(terms, "kayak") == [1, 2, 3, 4] + [n for n in even if 5 <= n <= 11]
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
    assert [shard.reach()[1] for shard in terms.shards] == [8, 0]
    sync(index, terms, home)
    agrees(index, terms)
    assert lines(terms, "kayak") == list(range(1, 10))
