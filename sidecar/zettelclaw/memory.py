"""The sidecar's state and operations: what every JSON-RPC method and CLI command acts on.

Synchronous and thread-safe. The trio server calls the slow parts in worker threads; the CLI,
when no sidecar answers, calls the same object directly, so both give the same answers.

The log is the truth. Before answering, ``sync`` stats the log and, only if it changed, brings the
index up to date; the handoff context is recomputed only then, so the hook that runs before
every agent turn answers from memory.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

from zettelclaw import __version__, lock
from zettelclaw.config import SearchConfig
from zettelclaw.errors import NotFoundError, SubjectNotFoundError
from zettelclaw.files import atomic_write_json
from zettelclaw.home import Home
from zettelclaw.log.schema import ID_RE
from zettelclaw.memory_files import read_slice
from zettelclaw.protocol.params import (
    BeforePromptBuildParams,
    GetParams,
    SearchParams,
    SubjectsAddParams,
    SubjectsRenameParams,
)
from zettelclaw.recall.handoff import MAX_ITEMS, format_handoff
from zettelclaw.search import query
from zettelclaw.search.index import Index
from zettelclaw.search.ingest import CatchUpReport, Ingester, LogStat, Progress
from zettelclaw.search.searcher import Searcher
from zettelclaw.session_keys import Audience
from zettelclaw.state import default_state
from zettelclaw.subjects.registry import DEFAULT_TYPE, Subject, SubjectRegistry, title_case
from zettelclaw.subjects.rename import remove_leftover, rewrite_subject_locked
from zettelclaw.subjects.rename import temp_path as rename_leftover

logger = logging.getLogger(__name__)


class SyncStoppedError(Exception):
    """A sync stopped early because the sidecar is shutting down."""


class Memory:
    def __init__(self, home: Home, workspace: Path, search: SearchConfig | None = None) -> None:
        home.ensure()
        self.home = home
        self.workspace = workspace
        self.subjects = SubjectRegistry(home)
        self.index = Index(home.index)
        self.ingester = Ingester(self.index, home.log, self.subjects.display)
        self.searcher = Searcher(self.index, self.ingester, workspace, search or SearchConfig())
        self._subjects_stamp = self.subjects.stamp()
        self.started = time.monotonic()
        self._sync_lock = threading.Lock()
        self._synced_stat: LogStat | None = None
        self._handoff: str | None = None
        self.progress: tuple[int, int] | None = None  # (bytes, of bytes) while indexing
        self._stopping = threading.Event()
        self._create_missing_files()

    def _create_missing_files(self) -> None:
        if rename_leftover(self.home).exists():  # a rename cut short by a crash
            with lock.exclusive(self.home.lock):
                if remove_leftover(self.home):
                    logger.info("removed the temp file of a subject rename that did not finish")
        if self.home.subjects.exists() and self.home.state.exists():
            return
        with lock.exclusive(self.home.lock):
            if not self.home.subjects.exists():
                atomic_write_json(self.home.subjects, {})
            if not self.home.state.exists():
                atomic_write_json(self.home.state, default_state())

    def stop(self) -> None:
        """Ask a long sync in another thread to stop after its current batch."""
        self._stopping.set()

    def close(self) -> None:
        self.index.close()

    # -- keeping up with the log -------------------------------------------------------------

    def needs_sync(self) -> bool:
        """Cheap (two stats): have the log or subjects.json changed since the last sync?"""
        return (LogStat.of(self.home.log) != self._synced_stat
                or self.subjects.stamp() != self._subjects_stamp)

    @property
    def syncing(self) -> bool:
        return self._sync_lock.locked()

    def sync(self, progress: Progress | None = None, locked: bool = False) -> CatchUpReport:
        """Index what the log gained; ``locked`` when the caller holds the data lock.

        Lock order: the data lock (``HOME/lock``) before ``_sync_lock``, never the other way:
        new subjects are registered under the data lock only after ``_sync_lock`` is let go,
        unless the caller already holds the data lock.
        """
        with self._sync_lock:
            stat = LogStat.of(self.home.log)  # taken first: a change during the sync is seen next

            try:
                report = self.ingester.catch_up(self._tracker(progress))
            finally:
                self.progress = None
            if report.subjects and locked:
                self._register(report.subjects, locked=True)
            if self.subjects.stamp() != self._subjects_stamp:  # display names may have changed
                self._subjects_stamp = self.subjects.stamp()
                self.ingester.refresh_subject_names()
            if report.entries or report.rebuilt or self._synced_stat is None:
                self._refresh_handoff()
            self._synced_stat = stat
        if report.subjects and not locked:
            self._register(report.subjects, locked=False)
        return report

    def _tracker(self, progress: Progress | None) -> Progress:
        def track(done: int, total: int) -> None:
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

    def _refresh_handoff(self) -> None:
        with self.index.read() as conn:
            handoff = query.last_handoff(conn)
            if handoff is None:
                self._handoff = None
                return
            items = query.open_items(conn, handoff["session"], 2 * MAX_ITEMS)
            self._handoff = format_handoff(query.entry_dict(handoff),
                                           [query.entry_dict(i) for i in items])

    # -- reads -------------------------------------------------------------------------------

    def handoff_context(self, params: BeforePromptBuildParams) -> str | None:
        """The prependContext for a turn: the cached handoff, for private main sessions only."""
        audience = Audience(params.session_key, params.chat_type, params.sender_is_owner)
        reason = audience.private_reason()
        if reason is not None:
            logger.debug("no handoff for %s: %s", params.session_key, reason)
            return None
        return self._handoff

    def search(self, params: SearchParams) -> dict[str, Any]:
        return self.searcher.search(params)

    def rebuild(self, progress: Progress | None = None) -> dict[str, Any]:
        """Index everything again from scratch (``zettelclaw reindex``)."""
        started = time.monotonic()
        with self._sync_lock:
            stat = LogStat.of(self.home.log)
            try:
                report = self.searcher.rebuild(self._tracker(progress))
            finally:
                self.progress = None
            self._refresh_handoff()
            self._synced_stat = stat
        if report.subjects:
            self._register(report.subjects, locked=False)
        status = self.searcher.status()
        return {"entries": report.entries, "invalidLines": report.invalid,
                "memoryFiles": status["memoryFiles"], "chunks": status["chunks"],
                "seconds": round(time.monotonic() - started, 3)}

    def get(self, params: GetParams) -> dict[str, Any]:
        path = params.path.strip()
        if ID_RE.match(path):
            with self.index.read() as conn:
                found = query.get_entry(conn, path)
            if found is None:
                raise NotFoundError(f"no entry with id {path} in the log", {"path": path})
            return found
        part = read_slice(self.workspace, path, params.from_, params.lines)
        return {"path": part.path, "text": part.text, "from": part.start, "lines": part.count,
                "totalLines": part.total, "truncated": part.truncated}

    def subjects_list(self) -> dict[str, Any]:
        registry = self.subjects.load()
        with self.index.read() as conn:
            stats = query.subject_stats(conn)
        subjects = []
        for slug in sorted(set(registry) | set(stats)):
            known = registry.get(slug)
            entries, last = stats.get(slug, (0, None))
            subjects.append({
                "slug": slug,
                "display": known.display if known else title_case(slug),
                "type": known.type if known else None,
                "registered": known is not None,
                "entries": entries,
                "lastEntry": last,
            })
        return {"subjects": subjects}

    def status(self) -> dict[str, Any]:
        with self.index.read() as conn:
            counts = query.counts(conn)
            invalid = query.invalid_lines(conn, 5)
            meta = self.index.meta(conn)
        log_bytes = LogStat.of(self.home.log)
        size = log_bytes.size if log_bytes else 0
        indexed = int(str(meta.get("offset", 0)))
        return {
            "version": __version__,
            "pid": os.getpid(),
            "uptimeSeconds": round(time.monotonic() - self.started, 3),
            "home": str(self.home.root),
            "workspace": str(self.workspace),
            "paths": {"log": str(self.home.log), "subjects": str(self.home.subjects),
                      "state": str(self.home.state), "index": str(self.home.index)},
            "log": {"bytes": size, "lines": int(str(meta.get("lines", 0))),
                    "unreadTailBytes": max(size - indexed, 0)},
            "entries": {"total": counts["total"], "byType": counts["byType"],
                        "replaced": counts["replaced"], "current":
                        counts["total"] - counts["replaced"]},
            "invalidLines": {"count": counts["invalidLines"], "first": invalid},
            "subjects": len(self.subjects.load()),
            "search": self.searcher.status(),
            "index": {"bytes": sum(_size(Path(f"{self.home.index}{suffix}"))
                               for suffix in ("", "-wal")),
                      "indexing": self.progress is not None,
                      "progress": list(self.progress) if self.progress else None},
        }

    # -- writes ------------------------------------------------------------------------------

    def subjects_add(self, params: SubjectsAddParams) -> dict[str, Any]:
        subject = self.subjects.add(params.slug, params.type, params.display)
        return {"subject": {"slug": params.slug, **subject.model_dump()}}

    def subjects_rename(self, params: SubjectsRenameParams) -> dict[str, Any]:
        old, new = params.from_, params.to
        with lock.exclusive(self.home.lock):
            self.sync(locked=True)
            registry = self.subjects.load()
            with self.index.read() as conn:
                in_log = conn.execute("SELECT count(*) FROM entries WHERE subject = ?",
                                      (old,)).fetchone()[0]
            if old not in registry and not in_log:
                raise SubjectNotFoundError(f"no subject {old!r} in the registry or the log",
                                           {"slug": old})
            merged = new in registry
            if not merged:  # the new slug takes the old one's type, and its display if custom
                source = registry.get(old)
                if source is None or source.display == title_case(old):
                    display = title_case(new)
                else:
                    display = source.display
                registry[new] = Subject(display=display,
                                        type=source.type if source else DEFAULT_TYPE)
                self.subjects.save_locked(registry)
            rewritten = 0
            if in_log:
                result = rewrite_subject_locked(self.home, old, new)
                self.ingester.adopt_rewrite(old, new, result.new_offset)
                rewritten = result.rewritten
                self._synced_stat = LogStat.of(self.home.log)
            registry.pop(old, None)
            self.subjects.save_locked(registry)
            self._subjects_stamp = self.subjects.stamp()  # the index has the new names already
            self._refresh_handoff()
        return {"from": old, "to": new, "merged": merged, "entriesRewritten": rewritten,
                "subject": {"slug": new, **registry[new].model_dump()}}


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
