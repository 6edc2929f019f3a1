"""index/terms.py: the log's term index (tantivy) following the SQLite index.

Covers: words as indexed (stems, diacritics, query syntax as text); every match found, however
old; filters inside the query; an entry replaced later and a renamed subject indexed again; a
SQLite index built anew (new epoch) starts the term index over, with no duplicates, also when
it happens within one update that was already given the entries; a crash
after tantivy's commit but before the change queue was emptied re-applies, never doubles; an
unreadable directory is rebuilt; another format's directory is removed and built again; writers in
two threads wait for each other; hits carry the type, status and time; a reader reloads only
after a commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import entry
from zettelclaw.home import Home
from zettelclaw.index import term_query
from zettelclaw.index import terms as terms_module
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.ingest import Ingester
from zettelclaw.index.term_documents import KINDS
from zettelclaw.index.terms import TermIndex
from zettelclaw.index.terms_update import Update

Write = Callable[..., list[dict[str, Any]]]


@pytest.fixture
def terms(home: Home) -> TermIndex:
    return TermIndex(home.terms)


def sync(index: Index, terms: TermIndex, home: Home) -> None:
    with terms.updating(index) as update:
        Ingester(index, home.log).catch_up(lambda done, total: update.pull())


def lines_of(index: Index, ids: list[str]) -> list[int]:
    with index.read() as conn:
        return [conn.execute("SELECT line FROM entries WHERE id = ?", (i,)).fetchone()[0]
                for i in ids]


def found(terms: TermIndex, query: str, *, every: bool = True,
          filters: Filters | None = None, limit: int = 100) -> list[int]:
    tokens = terms.tokens(query.split())
    return [hit.line for hit in terms.search(tokens, every=every, filters=filters or Filters(),
                                             limit=limit)]


def agrees(index: Index, terms: TermIndex) -> None:
    """Every entry has exactly one document, replaced exactly when SQLite says so."""
    with index.read() as conn:
        expected = [(row[0], row[1] is not None) for row in conn.execute(
            "SELECT line, replaced_by FROM entries ORDER BY line")]
    assert terms.documents() == expected


def test_words_are_stemmed_and_folded(terms: TermIndex) -> None:
    assert terms.tokens(["Deployments", "café", "retries", "deploy"]) == (
        "deploy", "cafe", "retri")


def test_query_syntax_is_text(index: Index, terms: TermIndex, home: Home,
                              write_log: Write) -> None:
    write_log(entry(content="use AND carefully in the shell"))
    sync(index, terms, home)
    assert len(found(terms, 'AND* "shell')) == 1  # no operator, no wildcard, no phrase


def test_every_match_counts_however_old(index: Index, terms: TermIndex, home: Home,
                                        write_log: Write) -> None:
    # the best match of a word found in 3,000 entries is the oldest of them: a window of the
    # newest matches would never see it
    best, = write_log(entry(content="deploy deploy deploy"))
    write_log(*[entry(content=f"deploy note number {i} with a few more words in it")
                for i in range(3000)])
    sync(index, terms, home)
    assert found(terms, "deploy", limit=1) == lines_of(index, [best["id"]])
    assert terms.count(terms.tokens(["deploy"])) == 3001


def test_filters_apply_inside_the_query(index: Index, terms: TermIndex, home: Home,
                                        write_log: Write) -> None:
    task, fact, other = write_log(
        entry("task", "renew the passport", subject="travel", session="s1",
              timestamp="2026-01-10T00:00:00Z"),
        entry("fact", "the passport expires in March", subject="travel", session="s2",
              timestamp="2026-02-10T00:00:00Z"),
        entry("fact", "passport photos are in the drawer", session="s2",
              timestamp="2026-03-10T00:00:00Z"))
    write_log(*[entry(content=f"passport filler {i}", timestamp="2025-06-01T00:00:00Z")
                for i in range(30)])
    sync(index, terms, home)
    t, f, o = lines_of(index, [task["id"], fact["id"], other["id"]])
    assert found(terms, "passport", filters=Filters(type="task")) == [t]
    assert found(terms, "passport", filters=Filters(status="open")) == [t]
    assert sorted(found(terms, "passport", filters=Filters(subject="travel"))) == [t, f]
    assert sorted(found(terms, "passport", filters=Filters(session="s2"))) == [f, o]
    since = 1_770_000_000.0  # 2026-02-02
    until = 1_772_500_000.0  # 2026-03-03
    assert found(terms, "passport", filters=Filters(since=since, until=until)) == [f]


def test_a_replaced_entry_is_left_out_unless_asked_for(index: Index, terms: TermIndex,
                                                       home: Home, write_log: Write) -> None:
    old, = write_log(entry(content="the ledger runs on mysql"))
    sync(index, terms, home)
    (o,) = lines_of(index, [old["id"]])
    assert found(terms, "ledger") == [o]
    new, = write_log(entry(content="the ledger runs on postgres", replaces=old["id"]))
    sync(index, terms, home)  # the old document is indexed again, as replaced
    (n,) = lines_of(index, [new["id"]])
    assert found(terms, "ledger") == [n]
    assert sorted(found(terms, "ledger", filters=Filters(include_replaced=True))) == [o, n]
    agrees(index, terms)


def test_a_correction_in_the_same_build_is_seen(index: Index, terms: TermIndex, home: Home,
                                                write_log: Write, monkeypatch: Any) -> None:
    # the replaced entry was handed to the writer in an earlier batch of the same update
    monkeypatch.setattr("zettelclaw.index.ingest.BATCH", 2)
    old, _, _ = write_log(entry(content="ledger on mysql"), entry(), entry())
    write_log(entry(content="ledger on postgres", replaces=old["id"]))
    sync(index, terms, home)
    agrees(index, terms)
    assert len(found(terms, "ledger")) == 1


def test_a_new_sqlite_index_starts_the_terms_over(index: Index, terms: TermIndex, home: Home,
                                                  write_log: Write) -> None:
    write_log(*[entry(content=f"kayak trip {i}") for i in range(5)])
    sync(index, terms, home)
    Ingester(index, home.log).reset()  # a rebuild: a new epoch, the same lines again
    sync(index, terms, home)
    agrees(index, terms)
    assert len(found(terms, "kayak")) == 5


def test_a_new_sqlite_index_within_one_update_drops_what_it_was_given(
        index: Index, terms: TermIndex, home: Home, write_log: Write) -> None:
    """A follower's update was given the log, then SQLite was built anew (a new epoch, the same
    lines) before it committed: the shard starts over from what it had committed, not from what
    it was given since (tantivy's delete_all_documents leaves a writer's uncommitted documents:
    every entry was held twice, and a partial match's share of the query counted double)."""
    write_log(*[entry(content=f"kayak trip {i}") for i in range(5)])
    with terms.updating(index) as update:
        Ingester(index, home.log).catch_up(lambda done, total: update.pull())
        Ingester(index, home.log).reset()
        Ingester(index, home.log).catch_up(lambda done, total: update.pull())
    agrees(index, terms)
    assert len(found(terms, "kayak")) == 5


def test_a_crash_before_the_queue_is_emptied_reapplies(index: Index, terms: TermIndex,
                                                       home: Home, write_log: Write,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    old, = write_log(entry(content="ledger on mysql"))
    sync(index, terms, home)
    write_log(entry(content="ledger on postgres", replaces=old["id"]))

    def crash(self: Update) -> None:
        raise RuntimeError("killed after tantivy's commit")

    with monkeypatch.context() as patch:
        patch.setattr(Update, "done", crash)
        with pytest.raises(RuntimeError):
            sync(index, terms, home)
    with index.read() as conn:
        assert conn.execute("SELECT count(*) FROM terms_dirty").fetchone()[0] == 1
    sync(index, terms, home)
    agrees(index, terms)
    with index.read() as conn:
        assert conn.execute("SELECT count(*) FROM terms_dirty").fetchone()[0] == 0


def test_an_update_that_fails_commits_nothing(index: Index, terms: TermIndex, home: Home,
                                              write_log: Write) -> None:
    write_log(entry(content="first note"))
    sync(index, terms, home)
    write_log(entry(content="second note"))

    def failing_sync() -> None:
        with terms.updating(index) as update:
            Ingester(index, home.log).catch_up()
            update.pull()
            raise RuntimeError("the sync failed")

    with pytest.raises(RuntimeError):
        failing_sync()
    assert len(found(terms, "note")) == 1
    sync(index, terms, home)  # the next one adds it
    assert len(found(terms, "note")) == 2


def test_an_unreadable_term_index_is_rebuilt(index: Index, home: Home,
                                             write_log: Write) -> None:
    write_log(entry(content="canoe club"))
    terms = TermIndex(home.terms)
    sync(index, terms, home)
    (terms.shards[1].path / "meta.json").write_text("{not json")
    again = TermIndex(home.terms)
    sync(index, again, home)
    agrees(index, again)
    assert len(found(again, "canoe")) == 1


def test_the_directory_is_private(terms: TermIndex) -> None:
    assert terms.root.stat().st_mode & 0o777 == 0o700
    assert terms.path.stat().st_mode & 0o777 == 0o700
    assert [shard.path.stat().st_mode & 0o777 for shard in terms.shards] == [0o700, 0o700]


def test_writers_in_two_threads_take_turns(index: Index, home: Home, write_log: Write) -> None:
    write_log(*[entry(content=f"shared word {i}") for i in range(200)])
    Ingester(index, home.log).catch_up()
    first, second = TermIndex(home.terms), TermIndex(home.terms)
    errors: list[BaseException] = []

    def update(terms: TermIndex) -> None:
        try:
            with terms.updating(index):
                pass
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=update, args=(t,)) for t in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    agrees(index, first)


def test_the_highest_line_is_where_it_reads_on(index: Index, terms: TermIndex, home: Home,
                                               write_log: Write, tmp_path: Path) -> None:
    write_log(*[entry(content=f"river {i}") for i in range(3)])
    sync(index, terms, home)
    write_log(entry(content="river again"))
    sync(index, TermIndex(home.terms), home)  # another process's object: reads the files
    assert len(found(terms, "river")) == 4  # and this one sees its commit
    sync(index, terms, home)  # nothing left to add
    agrees(index, terms)


def test_a_reader_sees_each_commit_of_another_writer(index: Index, home: Home,
                                                     write_log: Write,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process's writer, as a second object on the same directory: the reader
    reloads when meta.json is replaced by a commit, and only then."""
    reader, writer = TermIndex(home.terms), TermIndex(home.terms)
    assert found(reader, "ledger") == []
    for round_ in range(1, 4):
        write_log(entry(content=f"ledger note {round_}"))
        sync(index, writer, home)
        assert len(found(reader, "ledger")) == round_
    reloads: list[int] = []
    for shard in reader.shards:
        real = shard.index.reload

        def counted(real: Callable[[], None] = real) -> None:
            reloads.append(1)
            real()

        monkeypatch.setattr(shard, "index", _Counting(shard.index, counted))
    found(reader, "ledger")
    assert reloads == [], "nothing committed since: no reload"


class _Counting:
    """A tantivy index whose reloads are counted (its own methods are read-only)."""

    def __init__(self, inner: Any, reload: Any) -> None:
        self._inner, self.reload = inner, reload

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_hits_carry_the_type_status_and_time_sqlite_has(index: Index, terms: TermIndex,
                                                         home: Home, write_log: Write) -> None:
    """Read from the fast fields (the ranking weighs them): the same as the entries table."""
    write_log(entry("task", "ledger one", status="open"), entry("task", "ledger two",
                                                                   status="done"),
              *[entry(kind, f"ledger {kind}") for kind in ("fact", "decision", "question",
                                                          "handoff")])
    sync(index, terms, home)
    hits = terms.search(terms.tokens(["ledger"]), every=True, filters=Filters(), limit=10)
    with index.read() as conn:
        expected = {row[0]: (row[1], row[2], row[3]) for row in conn.execute(
            "SELECT line, type, status, ts FROM entries")}
    assert {hit.line: (hit.type, hit.status, hit.ts) for hit in hits} == expected
    assert len(expected) == len(KINDS) == 6


def test_another_formats_documents_are_removed_and_built_again(
        index: Index, home: Home, write_log: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """A release that changes the documents (format 1 had no type number) leaves the old
    directory behind it: the next open removes it, and the update fills the new one."""
    write_log(entry("decision", "canoe club"))
    monkeypatch.setattr(terms_module, "FORMAT", 1)
    old = TermIndex(home.terms)
    sync(index, old, home)
    monkeypatch.undo()
    new = TermIndex(home.terms)
    assert [p.name for p in home.terms.iterdir()] == [f"v{terms_module.FORMAT}"]
    sync(index, new, home)
    hits = new.search(new.tokens(["canoe"]), every=True, filters=Filters(), limit=10)
    assert [(hit.type, hit.status) for hit in hits] == [("decision", None)]


def _two_indexes(index: Index, home: Home, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[TermIndex, TermIndex]:
    """The same entries in the sharded term index and in one of a single shard."""
    with monkeypatch.context() as patch:
        patch.setattr(terms_module, "SHARDS", 1)
        single = TermIndex(tmp_path / "single")
    sharded = TermIndex(home.terms)
    Ingester(index, home.log).catch_up()
    for terms in (single, sharded):
        with terms.updating(index):
            pass
    return single, sharded


def _scores(terms: TermIndex, query: str, *, every: bool = True) -> dict[int, float]:
    return {hit.line: hit.bm25 for hit in terms.search(
        terms.tokens(query.split()), every=every, filters=Filters(), limit=1000)}


def test_shards_score_as_one_index(index: Index, home: Home, write_log: Write,
                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """"kayak" is in three odd lines and one even one: a shard alone would weigh it by its own
    frequency (1 of 200 against 3 of 200), so its best would outrank the other shard's equals.
    Every entry has as many words, so the shards' average lengths are all but equal (each
    shard's marker document counts as a document of no words: 0.25% here)."""
    write_log(*[entry(content=f"{'kayak' if n in (1, 2, 3, 5) else 'canoe'} note {n:03d}")
                for n in range(1, 401)])
    single, sharded = _two_indexes(index, home, tmp_path, monkeypatch)
    for query, every in (("kayak", True), ("kayak note", True), ("kayak canoe", False)):
        one, many = _scores(single, query, every=every), _scores(sharded, query, every=every)
        assert sorted(one) == sorted(many)
        assert many == pytest.approx(one, rel=1e-3)
    # and the check can fail: without the boosts the shards' scores differ
    monkeypatch.setattr(term_query, "boosts", lambda documents, frequencies: [
        [1.0] * len(frequencies[0]) for _ in documents])
    assert _scores(sharded, "kayak") != pytest.approx(_scores(single, "kayak"), rel=1e-2)


def test_the_best_of_every_shard_come_first(index: Index, home: Home, write_log: Write,
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The top k of two shards are the top k of the whole, best first, the same whether the
    shards are searched side by side or one after the other."""
    write_log(*[entry(content=" ".join(["ledger"] * (1 + n % 7) + ["filler"] * (n % 5)))
                for n in range(300)])
    single, sharded = _two_indexes(index, home, tmp_path, monkeypatch)
    tokens = sharded.tokens(["ledger"])
    expected = single.search(tokens, every=True, filters=Filters(), limit=25)
    for threshold in (10**9, 0):  # one after the other, then side by side
        monkeypatch.setattr(terms_module, "PARALLEL_POSTINGS", threshold)
        hits = sharded.search(tokens, every=True, filters=Filters(), limit=25)
        assert [round(hit.bm25, 4) for hit in hits] == [round(hit.bm25, 4) for hit in expected]
        assert sorted(hit.line for hit in hits) == sorted(hit.line for hit in expected)
    assert any(t.name.startswith("zettelclaw-terms") for t in threading.enumerate())
    with sharded._helpers_free:  # another search has the helper: this one goes alone
        alone = sharded.search(tokens, every=True, filters=Filters(), limit=25)
    assert [hit.line for hit in alone] == [hit.line for hit in hits]
    sharded.close()



def test_held_sums_the_weights_of_the_words_each_line_holds(
        index: Index, terms: TermIndex, home: Home, write_log: Write) -> None:
    ids = [e["id"] for e in write_log(entry(content="garage door opener"),
                                      entry(content="garage paint"),
                                      entry(content="paint 🍮 opener"),
                                      entry(content="nothing asked"))]
    sync(index, terms, home)
    lines = lines_of(index, ids)
    pudding, = terms.tokens(["🍮"])
    held = terms.held({"garag": 1.5, "open": 0.25, pudding: 4.0}, lines, replaced=False)
    assert {line: held.get(line, 0.0) for line in lines} == {
        lines[0]: 1.75, lines[1]: 1.5, lines[2]: 4.25, lines[3]: 0.0}
    assert terms.held({"paint": 1.0}, lines[:1], replaced=False) == {lines[0]: 0.0}
