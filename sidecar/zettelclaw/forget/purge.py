"""Purge: entries leave the disk, with everything derived from or copied with them.

The steps, each safe to run again:

1. the intent (``HOME/purge.json``: the ids, the sessions whose copies go), atomic and fsynced;
2. what writes cut short by a kill left removed (``remove_leftovers``: one rule for every temp
   file); the log rewritten without the entries' lines, in place (the machinery of a subject
   rename, ``subjects/rename.py``: journal, check, fsync; the log keeps its file, so a writer
   holding it open loses nothing; the purged bytes are overwritten);
3. the transcript copies of the sessions named (by session: that session; by id: the sessions the
   entries came from): their text goes, their message keys stay (``<sessionId>.keys``), so a
   sweep or the same conversation sent again is recognised as received and not extracted again;
4. the spool: the waiting jobs of those sessions (they hold the same conversation), and the
   purged entries in any other job's saved result;
5. the vault (``vault/scrub.py``), when one was built: the entries' lines leave its pages (an
   edited line still carrying an entry's block id too) and their items its state, page by page;
   the log's export (``artifacts/``), when one was written, is deleted (the next
   ``artifacts.list`` writes it again from the new index);
6. the index built again from the new log, its freed pages wiped (VACUUM, the WAL truncated),
   the vectors no entry or chunk uses deleted, the term index rebuilt (its old segments removed);
7. the intent removed. The MEMORY.md block is written again by the caller (``methods/forget``).

A crash anywhere leaves the intent: the next start (``resume``) runs every step again, so the
purge completes; nothing else is lost and nothing is duplicated (step 2 drops lines only).
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from zettelclaw import failpoints, lock
from zettelclaw.artifacts.listing import export_path, remove_export
from zettelclaw.errors import LogRewriteError
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.files import atomic_write_json, fsync_dir, remove_stale_temps
from zettelclaw.home import Home
from zettelclaw.log.lines import Line, Position, read_lines
from zettelclaw.subjects import rename
from zettelclaw.vault.scrub import scrub_locked, written_dirs

logger = logging.getLogger(__name__)


def intent_path(home: Home) -> Path:
    return home.root / "purge.json"


@dataclass
class Removed:
    log_lines: int = 0
    log_bytes: int = 0
    transcripts: int = 0
    transcript_bytes: int = 0
    spool_jobs: int = 0
    spool_entries: int = 0
    index_rows: int = 0
    vectors: int = 0
    vault_pages: int = 0
    vault_lines: int = 0
    seconds: float = 0.0
    steps: list[str] = field(default_factory=list)


def write_intent(home: Home, ids: list[str], sessions: list[str], drop_jobs: list[str]) -> None:
    """Step 1 (under the data lock)."""
    atomic_write_json(intent_path(home), {"ids": sorted(ids), "transcripts": sorted(sessions),
                                          "jobsOfSessions": sorted(drop_jobs)})
    failpoints.reach("purge-after-intent")


def read_intent(home: Home) -> dict[str, list[str]] | None:
    try:
        value = orjson.loads(intent_path(home).read_bytes())
    except FileNotFoundError:
        return None
    except orjson.JSONDecodeError:  # torn: atomic_write_json never leaves one, but be sure
        logger.warning("purge.json is unreadable; the purge it named cannot be finished")
        return None
    return {key: [str(v) for v in value.get(key, [])]
            for key in ("ids", "transcripts", "jobsOfSessions")}


def run_files_locked(home: Home, intent: dict[str, list[str]], removed: Removed) -> None:
    """Steps 2-5, under the vault's lock and the data lock (taken in that order)."""
    ids = frozenset(intent["ids"])
    if gone := remove_leftovers(home):
        logger.info("removed %d temp file(s) that writes cut short left", gone)
    dropped, dropped_bytes = (rewrite_without_locked(home, ids) if ids and home.log.exists()
                              else (0, 0))
    removed.log_lines += dropped
    removed.log_bytes += dropped_bytes
    failpoints.reach("purge-after-log")
    provenance = Provenance(home)
    for session in intent["transcripts"]:
        freed = provenance.prune(session)  # the keys stay: never extracted again
        if freed:
            removed.transcripts += 1
            removed.transcript_bytes += freed
    failpoints.reach("purge-after-transcripts")
    spool = Spool(home)
    for job in spool.jobs():
        if job.session_id in intent["jobsOfSessions"]:
            spool.delete(job.job_id)
            removed.spool_jobs += 1
        elif job.result and any(e.get("id") in ids for e in job.result.get("entries", [])):
            kept = [e for e in job.result["entries"] if e.get("id") not in ids]
            removed.spool_entries += len(job.result["entries"]) - len(kept)
            job.result = {**job.result, "entries": kept}
            spool.save(job)
    failpoints.reach("purge-after-spool")
    scrubbed = scrub_locked(home, ids)
    removed.vault_pages += scrubbed.pages
    removed.vault_lines += scrubbed.lines
    remove_export(home)
    failpoints.reach("purge-after-vault")


def finish(home: Home) -> None:
    intent_path(home).unlink(missing_ok=True)
    fsync_dir(home.root)


def remove_terms(home: Home) -> None:
    """The term index's directory, rebuilt from the index (its segments held the words)."""
    shutil.rmtree(home.terms, ignore_errors=True)


def rewrite_without_locked(home: Home, ids: frozenset[str]) -> tuple[int, int]:
    """The log without the lines of the entries ``ids`` (the first line of each id; a later
    duplicate is not an entry and is dropped too), rewritten in place as a subject rename
    rewrites it: a writer holding the log open loses nothing. Returns the lines and bytes
    dropped."""
    if not _holds_any(home.log, ids):
        return 0, 0
    copier = _Dropper(-1, "", "", drop=ids)

    def check(journal: Path) -> None:
        expected = copier.counts.entries - copier.dropped_entries
        if _holds_any(journal, ids) or _count(journal) != expected:
            raise LogRewriteError("the purged log would not hold the entries it should; "
                                  "the log is unchanged")

    rename.rewrite_in_place_locked(home, copier, check,
                                   before_write=lambda: failpoints.reach("purge-before-replace"))
    return copier.dropped, copier.dropped_bytes


def remove_leftovers(home: Home) -> int:
    """The one rule for what a write cut short by a kill leaves in a place a purge writes to,
    run as each purge starts (a resumed one too), under the vault's lock and the data lock:
    the log rewrite's journal (its write finished first), and ``atomic_write_bytes``'s temp
    files of other processes (or of an earlier process of this pid) in every folder whose
    files the purge replaces (conversation copies, spool, export, vault state, vault pages).
    They may hold the purged text; none is a write in progress, as their writers hold one of
    those locks. Returns how many went."""
    gone = int(rename.recover_locked(home))  # an in-place write cut short is finished first
    for directory in (Provenance(home).dir, Spool(home).dir, export_path(home).parent,
                      *written_dirs(home)):
        gone += remove_stale_temps(directory)
    return gone


@dataclass
class _Dropper(rename._Copier):
    drop: frozenset[str] = frozenset()
    dropped: int = 0
    dropped_entries: int = 0
    dropped_bytes: int = 0

    def _carry(self, line: Line, raw: bytes, at: int) -> bytes:
        if line.entry is not None and line.entry.id in self.drop:  # (a later duplicate too)
            self.dropped += 1
            self.dropped_entries += 1
            self.dropped_bytes += len(raw)
            return b""
        return raw


def _holds_any(path: Path, ids: frozenset[str]) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        for line, _ in read_lines(fd, Position(), os.fstat(fd).st_size):
            if line.entry is not None and line.entry.id in ids:
                return True
        return False
    finally:
        os.close(fd)


def _count(path: Path) -> int:
    fd = os.open(path, os.O_RDONLY)
    try:
        return sum(line.entry is not None
                   for line, _ in read_lines(fd, Position(), os.fstat(fd).st_size))
    finally:
        os.close(fd)


__all__ = ["Removed", "finish", "intent_path", "lock", "read_intent", "remove_leftovers",
           "remove_terms", "rewrite_without_locked", "run_files_locked", "write_intent"]
