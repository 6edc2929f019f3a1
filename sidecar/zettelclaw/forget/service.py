"""The forget use cases on one memory (blocking: run in a worker thread), and the purge's
recovery at start."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zettelclaw import failpoints, lock
from zettelclaw.errors import DataDirError
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.forget import purge as purging
from zettelclaw.forget.select import Criteria, Kept, Match, Scan, Written, select
from zettelclaw.home import Home
from zettelclaw.index import space
from zettelclaw.log import hides
from zettelclaw.log.store import LogStore
from zettelclaw.machine_state import machine_state
from zettelclaw.replicate.ingest import record_purged_locked
from zettelclaw.search import ann
from zettelclaw.vault.memory import Memory
from zettelclaw.vault.scrub import scrub_locked
from zettelclaw.vault.state import lock_path as vault_lock

logger = logging.getLogger(__name__)


# What of a memory (``app.App``) forgetting uses: the vault's Protocol, which names the same
# parts (and the two the purge's vault step needs besides), one definition for both packages
App = Memory


@dataclass(frozen=True)
class Forgotten:
    """What a hide, purge or unhide took (on a dry run: would take); ``memory.forget``'s answer
    is made of it (methods/forget.py). ``removed``: a purge's counts per place, None for the
    others; ``transcripts``: on a dry run of a purge, the sessions whose copies would go."""

    action: Literal["hide", "purge", "unhide"]
    dry_run: bool
    by: str
    entries: list[Match] = field(default_factory=list)
    changed: int = 0
    removed: purging.Removed | None = None
    transcripts: list[str] | None = None
    kept: list[Kept] = field(default_factory=list)  # later versions by others, left (Written)


def _entries(scan: Scan) -> list[Match]:
    return list(scan.matches)


def hide(app: App, criteria: Criteria, *, dry_run: bool, by: str | None = None) -> Forgotten:
    """Append one ``forget`` record naming the chosen entries not hidden yet, and take their
    lines off the vault's pages (as a purge does: ``vault/scrub.py``). Given back, an entry is
    in recall at once, and in the vault again after ``vault build --from-scratch``."""
    # the vault's lock first, as a purge takes them: the hidden entries' lines leave its pages
    with lock.exclusive(vault_lock(app.home)), lock.exclusive(app.home.lock):
        forgot = hide_locked(app, criteria, dry_run=dry_run, by=by, strict=True)
        if forgot.changed and not dry_run:
            scrub_locked(app.home, frozenset(m.id for m in forgot.entries if not m.hidden))
        return forgot


def hide_locked(app: App, criteria: Criteria, *, dry_run: bool = False, by: str | None = None,
                strict: bool = False) -> Forgotten:
    """``hide`` under the data lock already held (``vault sync`` hides struck lines' entries
    while it appends its corrections). ``by``: how they were chosen, when not by ``criteria``
    (``vault``). ``strict``: an id the log does not hold is NotFoundError."""
    how = by or criteria.by()
    scan = select(app.home, criteria)
    if strict:
        scan.refuse_unknown(criteria.ids)
    todo = [m.id for m in scan.matches if not m.hidden]
    if todo and not dry_run:
        LogStore(app.home).append_lines_locked(hides.line(todo, hide=True, by=how))
        app.freshness.sync(locked=True)
    return Forgotten(action="hide", dry_run=dry_run, by=how, entries=_entries(scan),
                  changed=len(todo))


def hide_for_vault(app: App, entry_id: str, by: str) -> list[str]:
    """``vault sync``'s hide of a struck line's entry (``vault.sync.Hide``): ``hide_locked``
    under the data lock it holds; the ids hidden now."""
    forgot = hide_locked(app, Criteria(ids=(entry_id,)), by=by)
    return [m.id for m in forgot.entries if not m.hidden]


def unhide(app: App, ids: list[str], *, dry_run: bool) -> Forgotten:
    """Append one ``unforget`` record naming those of ``ids`` (with their versions) that are
    hidden."""
    with lock.exclusive(app.home.lock):
        scan = select(app.home, Criteria(ids=ids))
        scan.refuse_unknown(ids)
        scan.matches = [m for m in scan.matches if m.hidden]
        todo = [m.id for m in scan.matches]
        if todo and not dry_run:
            LogStore(app.home).append_lines_locked(hides.line(todo, hide=False, by="id"))
            app.freshness.sync(locked=True)
    return Forgotten(action="unhide", dry_run=dry_run, by="id", entries=_entries(scan),
                  changed=len(todo))


def purge(app: App, criteria: Criteria, *, dry_run: bool, strict: bool = True) -> Forgotten:
    """Remove the chosen entries and what was derived from or copied with them (purge.py).
    ``strict``: an id the log does not hold is NotFoundError (a person's purge of nothing is
    no success); another machine's purge (``purge_ids``) takes only those this log holds."""
    started = time.monotonic()
    removed = purging.Removed()
    # the vault's lock first, as `vault build` and `vault sync` take them: its pages are scrubbed
    with lock.exclusive(vault_lock(app.home)), lock.exclusive(app.home.lock):
        scan = select(app.home, criteria)
        if strict:
            scan.refuse_unknown(criteria.ids)
        ids = scan.ids
        by_session = criteria.session is not None and not criteria.ids and \
            criteria.subject is None and not criteria.text
        sessions = ([criteria.session] if by_session and criteria.session is not None
                    else sorted({m.session for m in scan.matches} - {"manual"}))
        if dry_run:
            return Forgotten(action="purge", dry_run=True, by=criteria.by(),
                             entries=_entries(scan), changed=len(ids),
                             transcripts=[s for s in sessions
                                          if Provenance(app.home).path(s).exists()])
        if not ids and not by_session:
            return Forgotten(action="purge", dry_run=False, by=criteria.by(), entries=[],
                             changed=0, removed=removed)
        _purge_locked(app, ids, sessions, removed)
    removed.seconds = time.monotonic() - started
    return Forgotten(action="purge", dry_run=False, by=criteria.by(), entries=_entries(scan),
                     changed=len(ids), removed=removed)


def purge_ids(app: App, ids: list[str]) -> Forgotten:
    """A purge another machine made, applied here (replicate/git_sync.py): by id, the entries
    this log holds (none: nothing to do)."""
    return purge(app, Criteria(ids=tuple(ids)), dry_run=False, strict=False)


def purge_written(app: App, written: Written) -> Forgotten:
    """Purge what one writer wrote (an import's rollback): its entries, and its sessions'
    entries, conversation copies and spooled jobs, waiting or not."""
    started = time.monotonic()
    removed = purging.Removed()
    with lock.exclusive(vault_lock(app.home)), lock.exclusive(app.home.lock):
        scan = select(app.home, written)
        sessions = sorted(written.sessions)
        if scan.ids or sessions:
            _purge_locked(app, scan.ids, sessions, removed)
    removed.seconds = time.monotonic() - started
    return Forgotten(action="purge", dry_run=False, by=written.by(), entries=_entries(scan),
                     changed=len(scan.ids), removed=removed, kept=list(scan.kept))


def _purge_locked(app: App, ids: list[str], sessions: list[str],
                  removed: purging.Removed) -> None:
    # remembered as purged before anything goes: a sync never takes them back from another
    # machine, and tells the others to purge them too (docs/14-sync.md)
    record_purged_locked(app.home, ids)
    # a purge the machine stopped (a full disk) is still to finish: this one takes it on
    unfinished = purging.read_intent(app.home) or {}
    # the sessions' waiting jobs go with their copies: they hold the same conversation
    with _machine_stops(app, started=False):
        purging.write_intent(app.home, [*ids, *unfinished.get("ids", [])],
                             [*sessions, *unfinished.get("transcripts", [])],
                             [*sessions, *unfinished.get("jobsOfSessions", [])])
    intent = purging.read_intent(app.home)
    assert intent is not None
    with _machine_stops(app):
        # the rows counted before the log changes: once it is rewritten, the index's own
        # watcher may catch up with it before step 5 counts (which then saw nothing go)
        app.freshness.sync(locked=True)
        before = space.entry_total(app.index)
        purging.run_files_locked(app.home, intent, removed)
        _index_step(app, removed, before)
        purging.finish(app.home)


@contextlib.contextmanager
def _machine_stops(app: App, *, started: bool = True, at_start: bool = False
                   ) -> Iterator[None]:
    """A purge the machine stops (a full disk, a read-only file system) is a DataDirError
    saying so, what it needs and the way on, not an internal error; its intent stays, so it is
    finished by the next purge or start once there is room."""
    try:
        yield
    except (OSError, sqlite3.Error) as exc:
        cause = machine_state(exc)
        if cause is None:
            raise
        if not started:
            raise DataDirError(f"the purge cannot start: {cause} ({app.home.root}); nothing "
                               "was removed", {"cause": cause}) from exc
        need = _rewrite_bytes(app.home)
        when = ("it is finished at start, before anything is answered" if at_start
                else "it is finished by the next purge, or at the next start")
        raise DataDirError(
            f"a purge is not finished: {cause} ({app.home.root}). It needs about "
            f"{-(-need // (1 << 20))} MiB free (the log and the index are written again beside "
            f"the old ones): free that much, then start again; {when} (purge.json holds it)",
            {"cause": cause, "purge": str(purging.intent_path(app.home)), "needBytes": need},
        ) from exc


def _rewrite_bytes(home: Home) -> int:
    """What a purge writes beside what it replaces: a copy of the log, an index, a term index."""
    total = 0
    for path in (home.log, home.index):
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    for folder, _, names in os.walk(home.terms):
        for name in names:
            with contextlib.suppress(OSError):
                total += (Path(folder) / name).stat().st_size
    return total


def _index_step(app: App, removed: purging.Removed, before: int | None = None) -> None:
    """Step 5 (under the data lock): the index made again from the new log, its free pages and
    WAL wiped, unused vectors deleted; the term index starts over (a new epoch: every shard
    deletes all its documents, and tantivy removes the segments no longer used). ``before``:
    the index's entries before the log was rewritten (a purge resumed at start counts from the
    index as it finds it)."""
    if before is None:
        before = space.entry_total(app.index)
    app.freshness.rebuild(locked=True)  # (new subjects registered under our lock)
    removed.index_rows += max(0, before - space.entry_total(app.index))
    removed.vectors += space.drop_unused_vectors(app.index)
    ann.remove(ann.folder(app.index.path))  # made again from the vectors left
    space.wipe_free_pages(app.index)
    app.freshness.terms.collect_garbage()
    failpoints.reach("purge-after-index")


def resume(app: App) -> bool:
    """At start: finish a purge a crash cut short (its intent is still there). True if one was."""
    if not purging.intent_path(app.home).exists():
        return False
    with lock.exclusive(vault_lock(app.home)), lock.exclusive(app.home.lock):
        intent = purging.read_intent(app.home)
        if intent is None:
            return False
        removed = purging.Removed()
        with _machine_stops(app, at_start=True):
            purging.run_files_locked(app.home, intent, removed)
            _index_step(app, removed)
            purging.finish(app.home)
    logger.info("finished a purge cut short: %s", removed)
    return True
