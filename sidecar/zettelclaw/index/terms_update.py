"""One writer session of the term index: what SQLite holds that the shards do not, added; what
changed in place, indexed again.

Each shard has its own writer, epoch and highest line (``Shard.reach``), and they are committed
one after the other: a crash between two commits leaves each shard consistent, and the next
update reads from the lowest of their lines, giving each shard only the lines it lacks. The
change queue (``terms_dirty``) is emptied only after every shard committed, so a crash
re-applies a change (delete by line, add again: the same result), never loses it.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import tantivy
from tantivy import Query

from zettelclaw.index.database import Index
from zettelclaw.index.term_documents import FIELDS, document, marker
from zettelclaw.index.term_shard import Shard

logger = logging.getLogger(__name__)

# Bytes across the shards' writers, each with one thread: a writer writes a segment when its
# heap is full, in the background while it is fed, and what is left at its commit. The shards'
# commits run side by side: one after the other, a cold build's follower ended 1.0-1.3 s after
# the parent's build, now 0.5 s (at 1M, two segments a shard; 64 MB a shard made three, and each
# segment costs a rare word's search ~15 us).
WRITER_HEAP = 200_000_000
WRITER_THREADS = 2  # across the shards' writers (one thread each, at least)
FEED_BATCH = 20_000


class Update:
    def __init__(self, shards: Sequence[Shard], index: Index) -> None:
        self.shards = shards
        self.index = index
        reached = [shard.reach() for shard in shards]
        self.epochs = [epoch for epoch, _ in reached]
        self.fed = [line for _, line in reached]  # each shard's highest line given to it
        self.writers: list[tantivy.IndexWriter | None] = [None] * len(shards)  # at first write
        self.dirty_upto = 0  # the terms_dirty rows taken so far (by rowid)

    def _writer(self, number: int) -> tantivy.IndexWriter:
        writer = self.writers[number]
        if writer is None:
            writer = self.writers[number] = self.shards[number].writer(
                WRITER_HEAP // len(self.shards), max(WRITER_THREADS // len(self.shards), 1))
        return writer

    def pull(self) -> None:
        """Give the writers every entry and change the SQLite index has and they have not."""
        with self.index.read() as conn:
            self._check_epoch(conn)
            self._redo(conn)
        count = len(self.shards)
        while True:
            start = min(self.fed)
            with self.index.read() as conn:
                rows = conn.execute(f"SELECT {FIELDS} FROM entries WHERE line > ?"  # noqa: S608
                                    " ORDER BY line LIMIT ?", (start, FEED_BATCH)).fetchall()
            if not rows:
                return
            for row in rows:
                number = row[0] % count
                if row[0] > self.fed[number]:
                    self._writer(number).add_json(document(row))
            last = rows[-1][0]
            self.fed = [max(fed, last) for fed in self.fed]
            if last % 100_000 < FEED_BATCH:
                logger.debug("term index: %d lines", last)

    def _check_epoch(self, conn: sqlite3.Connection) -> None:
        epoch = str(self.index.meta(conn).get("terms_epoch", ""))
        for number, known in enumerate(self.epochs):
            if known != epoch:  # a new SQLite index: the shard starts over, in the same commit
                writer = self._writer(number)
                writer.delete_all_documents()
                writer.add_json(marker(epoch))
                self.epochs[number], self.fed[number] = epoch, 0

    def _redo(self, conn: sqlite3.Connection) -> None:
        """Index again the entries changed in place that the writers already have."""
        queued = conn.execute("SELECT rowid, line FROM terms_dirty WHERE rowid > ? ORDER BY rowid",
                              (self.dirty_upto,)).fetchall()
        if not queued:
            return
        self.dirty_upto = queued[-1][0]
        count = len(self.shards)
        lines = sorted({line for _, line in queued if line <= self.fed[line % count]})
        for start in range(0, len(lines), 500):
            part = lines[start:start + 500]
            rows = conn.execute(f"SELECT {FIELDS} FROM entries WHERE line IN"  # noqa: S608
                                f" ({','.join('?' * len(part))})", part).fetchall()
            for row in rows:
                number = row[0] % count
                writer = self._writer(number)
                # by query: a term of a Python int is not the u64 field's term
                writer.delete_documents_by_query(
                    Query.term_query(self.shards[number].schema, "line", row[0]))
                writer.add_json(document(row))

    def commit(self) -> None:
        """Every shard's commit, side by side: each writes its last segment on one thread (a
        cold build's last ~1 s, which one after the other would double). The first error is
        raised once they all ended."""
        writers = [writer for writer in self.writers if writer is not None]
        if len(writers) < 2:
            for writer in writers:
                _commit(writer)
            return
        with ThreadPoolExecutor(len(writers), thread_name_prefix="zettelclaw-commit") as pool:
            futures = [pool.submit(_commit, writer) for writer in writers]
        for future in futures:
            future.result()

    def rollback(self) -> None:
        for writer in self.writers:
            if writer is not None:
                writer.rollback()
                writer.wait_merging_threads()  # lets tantivy's own lock go

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
