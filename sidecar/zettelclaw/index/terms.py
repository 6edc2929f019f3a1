"""The log's term index: BM25 over every entry's words, top-k by tantivy (block-max WAND).

Derived like the rest of the index: it follows the ``entries`` table of ``index.sqlite`` (which
follows the log), lives in its own directory (``HOME/terms/``) and can be deleted at any time.
Why tantivy rather than SQLite FTS5: FTS5 computes BM25 for every row that matches, so a query of
two words found in a third of the entries scores a hundred thousand rows; tantivy skips blocks of
postings that cannot reach the top k, and answers the same query over a million entries in a
few milliseconds (bench/README.md, "Search at a million entries").

One document per entry: its words (content, detail and subject display name, stemmed, folded to
ASCII), its line, and the fields that filters test (type, status, subject, session, time, and
whether a later entry replaced it). Documents are keyed by line. How far the term index has read
is its own highest line, and a marker document (line 0) holds the ``terms_epoch`` of the SQLite
index it was built from: a rebuilt SQLite index has a new epoch, and the term index starts over
in the same commit that records it. What changes in place (an entry replaced later, a subject
renamed) is queued in SQLite's ``terms_dirty`` and re-indexed by the next update; the queue is
emptied only after tantivy committed, so a crash at any point re-applies work, never loses it.

Writers are one at a time across threads and processes (``HOME/terms.lock``), and tantivy's own
lock backs that up.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import tantivy
from tantivy import Index as TantivyIndex  # not zettelclaw's Index (index/database.py)
from tantivy import Occur, Query

from zettelclaw import lock
from zettelclaw.index.database import Index
from zettelclaw.index.entries import Filters
from zettelclaw.index.ingest import Row

logger = logging.getLogger(__name__)

ANALYZER = "zettelclaw"
FORMAT = 2  # of the documents: another value, another directory (the old one is removed);
# 2: an entry's type and status as one number (KINDS), read with its time from the fast fields
# (a keyword search's 100 candidates were asked of SQLite for them: ~0.1 ms at 1M entries)
WRITER_HEAP = 200_000_000  # bytes across the writer's threads: fewer, larger segments
WRITER_THREADS = 2
FEED_BATCH = 20_000
_FIELDS = ("line, type, status, subject, session, ts, content, detail, subject_name,"
           " replaced_by IS NOT NULL")
KINDS: tuple[tuple[str, str | None], ...] = (  # (type, status), by the number a document holds
    ("task", "open"), ("task", "done"), ("fact", None), ("decision", None), ("question", None),
    ("handoff", None))
_KIND_NUMBER = {kind: number for number, kind in enumerate(KINDS)}


def _analyzer() -> tantivy.TextAnalyzer:
    # Words as FTS5's unicode61 tokenizer cut them, without diacritics, Porter-stemmed
    # (English): "deployments" finds "deploy", "café" finds "cafe".
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build())


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", tokenizer_name=ANALYZER, index_option="freq")
    for name in ("type", "status", "subject", "session"):
        builder.add_text_field(name, tokenizer_name="raw")
    builder.add_text_field("epoch", stored=True, tokenizer_name="raw")
    builder.add_unsigned_field("line", indexed=True, fast=True)
    builder.add_float_field("ts", indexed=True, fast=True)
    builder.add_boolean_field("replaced", indexed=True, fast=True)
    builder.add_unsigned_field("kind", fast=True)  # KINDS
    return builder.build()


@dataclass(frozen=True)
class Hit:
    line: int
    bm25: float
    type: str
    status: str | None
    ts: float


class TermIndex:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / f"v{FORMAT}"
        self.lock_path = root.parent / f"{root.name}.lock"
        self.analyzer = _analyzer()
        self.schema = _schema()
        self._index = self._open()
        self._loaded: tuple[int, int, int] | None = None  # meta.json when last reloaded

    def _open(self) -> TantivyIndex:
        self.root.mkdir(mode=0o700, exist_ok=True)
        for other in self.root.iterdir():  # another format's documents: of no use now
            if other != self.path:
                shutil.rmtree(other, ignore_errors=True)
        self.path.mkdir(mode=0o700, exist_ok=True)
        try:
            index = TantivyIndex(self.schema, path=str(self.path))
        except ValueError as exc:  # unreadable (a torn copy, another tantivy's format)
            logger.warning("term index %s is unreadable (%s); rebuilding it", self.path, exc)
            shutil.rmtree(self.path, ignore_errors=True)
            self.path.mkdir(mode=0o700)
            index = TantivyIndex(self.schema, path=str(self.path))
        index.register_tokenizer(ANALYZER, self.analyzer)
        return index

    # -- words --------------------------------------------------------------------------------

    def tokens(self, words: Iterable[str]) -> tuple[str, ...]:
        """The indexed forms of ``words`` (stemmed, folded), each once, in order."""
        found: dict[str, None] = {}
        for word in words:
            for token in self.analyzer.analyze(word):
                found.setdefault(token)
        return tuple(found)

    # -- reading -------------------------------------------------------------------------------

    def search(self, tokens: Sequence[str], *, every: bool, filters: Filters, limit: int
               ) -> list[Hit]:
        """The ``limit`` best entries by BM25 with every token (``every``) or any of them,
        passing ``filters``; best first."""
        if not tokens or limit <= 0:
            return []
        occur = Occur.Must if every else Occur.Should
        words = [(occur, Query.term_query(self.schema, "text", t)) for t in tokens]
        if not every and len(words) > 1:  # Should beside Must filters: at least one word
            words = [(Occur.Must, Query.boolean_query(words))]
        clauses = [*words, *self._filters(filters)]
        if not filters.include_replaced:
            clauses.append((Occur.MustNot, Query.term_query(self.schema, "replaced", True)))
        searcher = self._searcher()
        found = searcher.search(Query.boolean_query(clauses), limit, count=False).hits
        addresses = [address for _, address in found]
        values = zip(found, *(searcher.fast_field_values(name, addresses)
                              for name in ("line", "kind", "ts")), strict=True)
        return [Hit(int(line), float(score), *KINDS[int(kind)], float(ts))
                for (score, _), line, kind, ts in values if line is not None]

    def containing(self, token: str, lines: Sequence[int]) -> set[int]:
        """Which of ``lines`` hold ``token``."""
        if not lines:
            return set()
        query = Query.boolean_query([
            (Occur.Must, Query.term_query(self.schema, "text", token)),
            (Occur.Must, Query.term_set_query(self.schema, "line", list(lines)))])
        searcher = self._searcher()
        found = searcher.search(query, len(lines), count=False).hits
        return {int(v) for v in searcher.fast_field_values("line", [a for _, a in found])
                if v is not None}

    def frequencies(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(documents, how many of them hold each token): BM25's inputs, for weighing words."""
        searcher = self._searcher()
        return (max(searcher.num_docs - 1, 0),  # the epoch marker is not an entry
                {token: int(searcher.doc_freq("text", token)) for token in tokens})

    def count(self, tokens: Sequence[str], *, every: bool = True) -> int:
        """How many current entries hold the tokens (the benchmark reports it)."""
        occur = Occur.Must if every else Occur.Should
        query = Query.boolean_query([
            *((occur, Query.term_query(self.schema, "text", t)) for t in tokens),
            (Occur.MustNot, Query.term_query(self.schema, "replaced", True))])
        found: Any = self._searcher().search(query, 1, count=True)
        return int(found.count or 0)

    def documents(self) -> list[tuple[int, bool]]:
        """Every entry's document as (line, replaced), by line: what a check compares with
        SQLite (a line twice would be a duplicate)."""
        searcher = self._searcher()
        query = Query.boolean_query([
            (Occur.Must, Query.all_query()),
            (Occur.MustNot, Query.term_query(self.schema, "line", 0))])
        hits = searcher.search(query, max(searcher.num_docs, 1), count=False).hits
        addresses = [address for _, address in hits]
        lines = searcher.fast_field_values("line", addresses)
        replaced = searcher.fast_field_values("replaced", addresses)
        return sorted((int(line), bool(flag)) for line, flag in zip(lines, replaced, strict=True)
                      if line is not None)

    def _filters(self, filters: Filters) -> list[tuple[Occur, Query]]:
        """Clauses for the filters, but for ``include_replaced``."""
        clauses: list[tuple[Occur, Query]] = []
        for name in ("type", "subject", "status", "session"):
            value = getattr(filters, name)
            if value is not None:
                clauses.append((Occur.Must, Query.const_score_query(
                    Query.term_query(self.schema, name, value), 0.0)))
        if filters.since is not None or filters.until is not None:
            clauses.append((Occur.Must, Query.const_score_query(Query.range_query(
                self.schema, "ts", tantivy.FieldType.Float, filters.since, filters.until), 0.0)))
        return clauses

    def _searcher(self) -> tantivy.Searcher:
        """What was committed last, by this process or another. Every commit replaces
        meta.json (written aside and renamed in), so its stat tells when to reload: a reload
        costs ~60 us, a stat ~3, and a rare word's whole search ~1 ms at a million entries."""
        try:
            st = os.stat(self.path / "meta.json")
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp is None or stamp != self._loaded:
            self._index.reload()
            self._loaded = stamp
        return self._index.searcher()

    def _reach(self) -> tuple[str | None, int]:
        """(the epoch the documents belong to, the highest line indexed; 0 when none)."""
        searcher = self._index.searcher()
        marker = searcher.search(Query.term_query(self.schema, "line", 0), 1, count=False).hits
        epoch = searcher.doc(marker[0][1]).get_first("epoch") if marker else None
        last = searcher.search(Query.all_query(), 1, count=False, order_by_field="line").hits
        return (str(epoch) if epoch is not None else None), (int(last[0][0]) if last else 0)

    # -- writing -------------------------------------------------------------------------------

    @contextmanager
    def updating(self, index: Index) -> Iterator[Update]:
        """Bring the documents up to the SQLite ``index``: ``Update.pull`` as it grows (a cold
        build feeds tantivy's threads while SQLite takes the next batch), then one commit. The
        writer (threads, memory) is made only when there is something to write."""
        with lock.exclusive(self.lock_path):
            self._index.reload()
            update = Update(self, index, *self._reach())
            try:
                update.pull()
                yield update
                update.pull()
                if update.writer is not None:
                    update.writer.commit()
                    update.writer.wait_merging_threads()
            except BaseException:
                if update.writer is not None:
                    update.writer.rollback()
                    update.writer.wait_merging_threads()  # lets tantivy's own lock go
                raise
            if update.writer is not None:
                update.done()
                self._index.reload()

    def writer(self) -> tantivy.IndexWriter:
        return self._index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)

    def close(self) -> None:
        """Nothing to release: tantivy's files are closed with the object."""


class Update:
    """One writer session: what SQLite holds that the documents do not, added; what changed in
    place, indexed again."""

    def __init__(self, terms: TermIndex, index: Index, epoch: str | None, fed: int) -> None:
        self.terms = terms
        self.writer: tantivy.IndexWriter | None = None  # made at the first write
        self.index = index
        self.epoch = epoch
        self.fed = fed  # the highest line given to the writer
        self.dirty_upto = 0  # the terms_dirty rows taken so far (by rowid)

    def _writer(self) -> tantivy.IndexWriter:
        if self.writer is None:
            self.writer = self.terms.writer()
        return self.writer

    def pull(self) -> None:
        """Give the writer every entry and change the SQLite index has and it has not."""
        with self.index.read() as conn:
            self._check_epoch(conn)
            self._redo(conn)
        while True:
            with self.index.read() as conn:
                rows = conn.execute(f"SELECT {_FIELDS} FROM entries WHERE line > ?"  # noqa: S608
                                    " ORDER BY line LIMIT ?", (self.fed, FEED_BATCH)).fetchall()
            if not rows:
                return
            writer = self._writer()
            for row in rows:
                writer.add_json(_json(row))
            self.fed = rows[-1][0]
            if self.fed % 100_000 < FEED_BATCH:
                logger.debug("term index: %d lines", self.fed)

    def _check_epoch(self, conn: sqlite3.Connection) -> None:
        epoch = str(self.index.meta(conn).get("terms_epoch", ""))
        if epoch != self.epoch:  # a new SQLite index: start over, in the same commit
            writer = self._writer()
            writer.delete_all_documents()
            writer.add_json(orjson.dumps({"line": 0, "epoch": epoch}).decode())
            self.epoch, self.fed = epoch, 0

    def _redo(self, conn: sqlite3.Connection) -> None:
        """Index again the entries changed in place that the writer already has."""
        queued = conn.execute("SELECT rowid, line FROM terms_dirty WHERE rowid > ? ORDER BY rowid",
                              (self.dirty_upto,)).fetchall()
        if not queued:
            return
        self.dirty_upto = queued[-1][0]
        lines = sorted({line for _, line in queued if line <= self.fed})
        for start in range(0, len(lines), 500):
            part = lines[start:start + 500]
            rows = conn.execute(f"SELECT {_FIELDS} FROM entries WHERE line IN"  # noqa: S608
                                f" ({','.join('?' * len(part))})", part).fetchall()
            writer = self._writer()
            for row in rows:
                # by query: a term of a Python int is not the u64 field's term
                writer.delete_documents_by_query(
                    Query.term_query(self.terms.schema, "line", row[0]))
                writer.add_json(_json(row))

    def done(self) -> None:
        """After the commit: the queue of changes taken is emptied."""
        if self.dirty_upto:
            with self.index.write() as conn:
                conn.execute("DELETE FROM terms_dirty WHERE rowid <= ?", (self.dirty_upto,))


def _json(row: Row | sqlite3.Row) -> str:
    """The document of an entry, as JSON: one call into tantivy instead of one per field
    (4.6 against 5.8 us an entry, which a cold build of a million entries feels)."""
    (line, kind, status, subject, session, ts, content, detail, subject_name, replaced) = row
    # content and subject name twice, detail once: BM25 weighs a word of the content about 1.4
    # times one of the detail (FTS5 weighed the columns 1 : 0.5). One field, not three: a query
    # of two common words over three fields took 7.6 ms at 1M entries, over one 5.9 ms.
    document: dict[str, object] = {
        "line": line, "type": kind, "session": session, "ts": float(ts),
        "replaced": bool(replaced), "kind": _KIND_NUMBER[kind, status],
        "text": "\n".join(t for t in (content, content, subject_name, subject_name, detail) if t)}
    if status is not None:
        document["status"] = status
    if subject is not None:
        document["subject"] = subject
    return orjson.dumps(document).decode()
