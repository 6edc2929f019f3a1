"""One writer session of the term index: what SQLite holds that the shards do not, added; what
changed in place, indexed again.

Every line has one place: the current shard of its number (``line % SHARDS``) or, once a later
entry replaced it, that number's replaced shard. Each of these tantivy indexes has its own
writer, and a marker document that says which SQLite index it follows (the epoch) and up to
which line it was given what belongs to it (``fed``), committed with its documents: a crash
between two commits leaves each consistent, and the next update reads from the lowest ``fed``,
giving each only the lines it lacks. An entry replaced later moves: deleted from both shards of
its number, added to the replaced one. The change queue (``terms_dirty``) is emptied only after
every shard committed, so a crash re-applies a change (the same result), never loses it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import tantivy
from tantivy import Query

from zettelclaw.index.database import Index
from zettelclaw.index.ingest import Row
from zettelclaw.index.term_documents import FIELDS, document, marker
from zettelclaw.index.term_shard import Shard

logger = logging.getLogger(__name__)

# Bytes across the current shards' writers, each with one thread: a writer writes a segment
# when its heap is full, in the background while it is fed, and what is left at its commit. The
# commits run side by side, which ends a cold build's follower sooner than one after the other;
# the heap is large enough for few segments a shard, since each segment adds to a rare word's
# search (bench/README.md#search-at-a-million-entries).
WRITER_HEAP = 200_000_000
REPLACED_HEAP = 20_000_000  # a replaced shard's writer: few documents (just over tantivy's least)
FEED_BATCH = 20_000
# A shard given nothing in an update keeps its marker, so the next update reads again the lines
# since it (to skip them): its marker is brought forward once it lags this many lines.
MARKER_LAG = 2_000


class Update:
    def __init__(self, current: Sequence[Shard], replaced: Sequence[Shard], index: Index
                 ) -> None:
        self.count = len(current)
        self.shards = [*current, *replaced]  # a line's: its number's, then + count if replaced
        self.index = index
        reached = [shard.reach() for shard in self.shards]
        self.epochs = [epoch for epoch, _ in reached]
        self.marked = [fed for _, fed in reached]  # as each marker says
        self.fed = list(self.marked)  # each shard's: every line up to it that is its, given
        self.start = max(self.marked)  # lines after it are given in this update, and:
        self.in_replaced: set[int] = set()  # those of them given to a replaced shard
        self.writers: list[tantivy.IndexWriter | None] = [None] * len(self.shards)
        self.dirty_upto = 0  # the terms_dirty rows taken so far (by rowid)
        self.committed: set[int] = set()  # the shards whose writer committed (and is gone)

    def _place(self, line: int, replaced: object) -> int:
        return line % self.count + (self.count if replaced else 0)

    def _writer(self, number: int) -> tantivy.IndexWriter:
        writer = self.writers[number]
        if writer is None:
            heap = WRITER_HEAP // self.count if number < self.count else REPLACED_HEAP
            writer = self.writers[number] = self.shards[number].writer(heap, 1)
        return writer

    def pull(self) -> None:
        """Give the writers every entry and change the SQLite index has and they have not."""
        with self.index.read() as conn:
            self._check_epoch(conn)
            self._redo(conn)
        while True:
            start = min(self.fed)
            with self.index.read() as conn:
                rows = conn.execute(f"SELECT {FIELDS} FROM entries WHERE line > ?"  # noqa: S608
                                    " ORDER BY line LIMIT ?", (start, FEED_BATCH)).fetchall()
            if not rows:
                return
            count, fed, writers, start = self.count, self.fed, self.writers, self.start
            for row in rows:  # a million times in a cold build: no calls but tantivy's
                line = row[0]
                place = line % count + (count if row[-1] else 0)
                if line > fed[place]:
                    writer = writers[place] or self._writer(place)
                    writer.add_json(document(row))
                    if place >= count and line > start:
                        self.in_replaced.add(line)
            last = rows[-1][0]
            self.fed = [max(fed, last) for fed in self.fed]
            if last % 100_000 < FEED_BATCH:
                logger.debug("term index: %d lines", last)

    def _check_epoch(self, conn: sqlite3.Connection) -> None:
        epoch = str(self.index.meta(conn).get("terms_epoch", ""))
        for number, known in enumerate(self.epochs):
            if known != epoch:  # a new SQLite index: the shard starts over, in the same commit
                given = self.writers[number]
                if given is not None:  # documents given in this update (a follower's, before
                    # SQLite was built anew): delete_all_documents leaves a writer's uncommitted
                    # documents, so they go first, or every entry would be held twice
                    given.rollback()
                self._writer(number).delete_all_documents()
                self.epochs[number], self.fed[number] = epoch, 0
                self.in_replaced.clear()  # every line is given again

    def _redo(self, conn: sqlite3.Connection) -> None:
        """Index again the entries changed in place that the writers may have: each is deleted
        from both shards of its number and added to its place, or left to ``pull`` when that
        place has not been given its lines that far."""
        queued = conn.execute("SELECT rowid, line FROM terms_dirty WHERE rowid > ? ORDER BY rowid",
                              (self.dirty_upto,)).fetchall()
        if not queued:
            return
        self.dirty_upto = queued[-1][0]
        count = self.count
        lines = sorted({line for _, line in queued
                        if line <= max(self.fed[line % count], self.fed[line % count + count])})
        for start in range(0, len(lines), 500):
            part = lines[start:start + 500]
            rows = conn.execute(f"SELECT {FIELDS} FROM entries WHERE line IN"  # noqa: S608
                                f" ({','.join('?' * len(part))})", part).fetchall()
            for line in set(part) - {row[0] for row in rows}:  # hidden: its row was deleted
                self._delete(line)
                self.in_replaced.discard(line)
            for row in rows:
                line = row[0]
                self._delete(line)
                place = self._place(line, row[-1])
                if line <= self.fed[place]:
                    self._add(place, row)

    def _delete(self, line: int) -> None:
        # by query: a term of a Python int is not the u64 field's term
        gone = Query.term_query(self.shards[0].schema, "line", line)
        for number in self._holders(line):
            self._writer(number).delete_documents_by_query(gone)

    def _add(self, place: int, row: Row) -> None:
        self._writer(place).add_json(document(row))
        if row[0] > self.start:
            if place >= self.count:
                self.in_replaced.add(row[0])
            else:
                self.in_replaced.discard(row[0])

    def _holders(self, line: int) -> tuple[int, ...]:
        """The shards that may hold ``line``: the one it was given to in this update, or, for
        a line given before, both of its number (a cold build moves ~2% of its entries, and a
        delete is work for tantivy: one, not two)."""
        current = line % self.count
        if line > self.start:
            return (current + self.count,) if line in self.in_replaced else (current,)
        return current, current + self.count

    def commit(self) -> None:
        """Every written shard's marker, then the commits side by side: each writes its last
        segment on one thread (a cold build's last ~0.5 s, which one after the other would
        double). The first error is raised once they all ended."""
        for number, fed in enumerate(self.fed):
            if self.writers[number] is None and fed - self.marked[number] < MARKER_LAG:
                continue
            writer = self._writer(number)
            writer.delete_documents_by_query(Query.term_query(self.shards[0].schema, "line", 0))
            writer.add_json(marker(self.epochs[number] or "", fed))
        numbers = [number for number, writer in enumerate(self.writers) if writer is not None]
        with ThreadPoolExecutor(max(len(numbers), 1),
                                thread_name_prefix="zettelclaw-commit") as pool:
            futures = [pool.submit(self._commit, number) for number in numbers]
        for future in futures:
            future.result()

    def _commit(self, number: int) -> None:
        writer = self.writers[number]
        assert writer is not None
        _commit(writer)
        self.committed.add(number)

    def rollback(self) -> None:
        """What was not committed is dropped, and every writer let go (tantivy's lock on its
        directory lasts as long as the writer: ``wait_merging_threads`` ends it)."""
        for number, writer in enumerate(self.writers):
            if writer is not None and number not in self.committed:
                writer.rollback()
                writer.wait_merging_threads()

    @property
    def wrote(self) -> bool:
        return any(writer is not None for writer in self.writers)

    def done(self) -> None:
        """After the commits: the queue of changes taken is emptied."""
        if self.dirty_upto:
            with self.index.write() as conn:
                conn.execute("DELETE FROM terms_dirty WHERE rowid <= ?", (self.dirty_upto,))


def _commit(writer: tantivy.IndexWriter) -> None:
    writer.commit()
    writer.wait_merging_threads()
