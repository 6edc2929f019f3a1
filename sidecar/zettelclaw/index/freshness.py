"""Keeping the index as fresh as the log: the sync core (blocking, thread-safe).

The log is the truth. ``sync`` stats the log and, only if it (or subjects.json) changed, brings
the index up to date: the SQLite index first, batch by batch, each batch handed on to the term
index (``index/terms.py``) as soon as it is committed, so that tantivy's threads index words
while SQLite takes the next batch; ``rebuild`` builds it again from scratch. Both run in worker
threads of the sidecar (``index/syncer.py`` is the trio side) or in the CLI's own process. After
a sync that changed entries, the ``on_change`` listeners run with a read connection, still in
the syncing thread: the handoff cache (``recall/handoff.py``) is refreshed there, so the hook
that runs before every agent turn answers from memory.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from zettelclaw import lock
from zettelclaw.home import Home
from zettelclaw.index import terms_follower
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.ingest import CatchUpReport, Ingester, Progress
from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.index.terms import TermIndex
from zettelclaw.index.terms_update import Update
from zettelclaw.subjects.registry import SubjectRegistry

logger = logging.getLogger(__name__)

Listener = Callable[[sqlite3.Connection], None]
LOGGED_CATCH_UP = 10_000  # entries: a catch-up this large is logged with its time


class SyncStoppedError(Exception):
    """A sync stopped early because the sidecar is shutting down."""


@dataclass(frozen=True)
class RebuildReport:
    entries: int
    invalid_lines: int
    seconds: float


class Freshness:
    def __init__(self, home: Home, index: Index, terms: TermIndex, ingester: Ingester, *,
                 files: WorkspaceIndexer, subjects: SubjectRegistry) -> None:
        self.home = home
        self.index = index
        self.terms = terms
        self.ingester = ingester
        self.files = files
        self.subjects = subjects
        self.on_change: list[Listener] = []
        self.progress: tuple[int, int] | None = None  # (bytes, of bytes) while indexing
        self._subjects_stamp = subjects.stamp()
        self._sync_lock = threading.Lock()
        self._synced_stat: LogStat | None = None
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Ask a long sync in another thread to stop after its current batch."""
        self._stopping.set()

    def needs_sync(self) -> bool:
        """Cheap (two stats): have the log or subjects.json changed since the last sync?"""
        return (LogStat.of(self.home.log) != self._synced_stat
                or self.subjects.stamp() != self._subjects_stamp
                or not self.terms.intact())  # deleted under us: the next sync makes it again

    def sync(self, progress: Progress | None = None, locked: bool = False) -> CatchUpReport:
        """Index what the log gained; ``locked`` when the caller holds the data lock.

        Lock order: the data lock (``HOME/lock``) before ``_sync_lock``, never the other way:
        new subjects are registered under the data lock only after ``_sync_lock`` is let go,
        unless the caller already holds the data lock.
        """
        with self._sync_lock:
            started = time.monotonic()
            stat = LogStat.of(self.home.log)  # taken first: a change during the sync is seen next
            report = self._catch_up(stat, progress, reset=False)
            if report.subjects and locked:
                self._register(report.subjects, locked=True)
            if report.entries or report.rebuilt or self._synced_stat is None:
                self._changed()
            self._synced_stat = stat
            if report.entries >= LOGGED_CATCH_UP:  # a build, not an append: say what it took
                logger.info("indexed %d entries in %.1f s", report.entries,
                            time.monotonic() - started)
        if report.subjects and not locked:
            self._register(report.subjects, locked=False)
        return report

    def rebuild(self, progress: Progress | None = None, locked: bool = False) -> RebuildReport:
        """Index the log and the memory files again from scratch (``zettelclaw reindex``).
        Vectors are kept: they are keyed by text, and reused. ``locked``: the caller holds the
        data lock (a purge)."""
        started = time.monotonic()
        with self._sync_lock:
            stat = LogStat.of(self.home.log)
            report = self._catch_up(stat, progress, reset=True)
            self.files.reset()
            self.files.sync()
            self._changed()
            self._synced_stat = stat
        if report.subjects:
            self._register(report.subjects, locked=locked)
        return RebuildReport(report.entries, report.invalid,
                             round(time.monotonic() - started, 3))

    def _catch_up(self, stat: LogStat | None, progress: Progress | None, *,
                  reset: bool) -> CatchUpReport:
        """The log's new lines into SQLite, and their words into the term index: beside it,
        batch by batch, in this process; or, when there is a lot to read (a cold build), in a
        follower process on the other core (``index/terms_follower.py``), and then here
        whatever it did not get to.

        ``progress`` (``status``'s ``index.indexing``) stays set until the term index has the
        last line too: a search waits for the whole catch-up, so a status that said "built"
        while the follower finished its tail sent a 1M-entry log's first search to wait, and
        then to -32007, after the status said it was ready (bench/run.py's cold start)."""
        if reset:
            self.ingester.reset()
        try:
            if not self._large(stat):
                with self.terms.updating(self.index) as update:
                    report = self.ingester.catch_up(self._tracker(progress, update))
                    self._refresh_names(reset)
                return report
            with terms_follower.Follower(self.index.path, self.terms.root) as follower:
                report = self.ingester.catch_up(self._tracker(progress, None))
                follower.finish()
            with self.terms.updating(self.index):
                self._refresh_names(reset)
            return report
        finally:
            self.progress = None

    def _large(self, stat: LogStat | None) -> bool:
        if stat is None:
            return False
        with self.index.read() as conn:
            indexed = int(str(self.index.meta(conn).get("offset", 0)))
        return stat.size - indexed > terms_follower.FOLLOW_BYTES

    def _refresh_names(self, reset: bool) -> None:
        if self.subjects.stamp() != self._subjects_stamp:  # display names changed?
            self._subjects_stamp = self.subjects.stamp()
            if not reset:  # (a reset index took the current names as it read)
                self.ingester.refresh_subject_names()

    def adopt_rewrite(self, old: str, new: str, new_offset: Callable[[int], int]) -> None:
        """A subject rename rewrote the log (under the data lock, which the caller holds): the
        index takes the new slug in place instead of indexing the log again."""
        with self._sync_lock, self.terms.updating(self.index):
            self.ingester.adopt_rewrite(old, new, new_offset)
            self._synced_stat = LogStat.of(self.home.log)

    def subjects_saved(self) -> None:
        """The caller saved subjects.json and the index has its names already."""
        with self._sync_lock:
            self._subjects_stamp = self.subjects.stamp()
            self._changed()

    def _changed(self) -> None:
        if not self.on_change:
            return
        with self.index.read() as conn:
            for listener in self.on_change:
                listener(conn)

    def _tracker(self, progress: Progress | None, update: Update | None) -> Progress:
        def track(done: int, total: int) -> None:
            if update is not None:
                update.pull()  # the batch SQLite just committed, to tantivy's threads
            if self._stopping.is_set():  # between two committed batches: safe to stop
                raise SyncStoppedError
            self.progress = (done, total)
            if progress is not None:
                progress(done, total)

        return track

    def _register(self, slugs: set[str], locked: bool) -> None:
        if locked:
            new = self.subjects.ensure_locked(slugs)
        else:
            with lock.exclusive(self.home.lock):
                new = self.subjects.ensure_locked(slugs)
        if new:
            logger.info("new subjects from the log: %s", ", ".join(new))
