"""Retention of the conversations kept (``HOME/transcripts/<sessionId>.jsonl``, per memory).

A transcript copy whose last message came more than ``retention.transcriptDays`` ago (its
file's modification time: every received stretch is appended to it) loses its text
(``Provenance.prune``: the keys stay, so the same conversation sent again is not extracted
twice). Never one whose session still has a job in the spool: the job is what the transcript
backs up until it is finished. The sidecar prunes when a memory opens and hourly while it is
open (extraction/worker.py); ``now`` is a parameter so that tests move the clock.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from zettelclaw import lock
from zettelclaw.extraction.provenance import SESSION_ID_RE, Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.home import Home

logger = logging.getLogger(__name__)

DAY = 86_400.0
INTERVAL_SECONDS = 3600.0  # how often an open memory looks for transcripts past their time


@dataclass(frozen=True)
class Pruned:
    files: int
    bytes: int


def prune(home: Home, provenance: Provenance, spool: Spool, days: int,
          now: float | None = None) -> Pruned:
    """Prune the transcripts older than ``days`` (under the data lock: intake appends under
    it, and a hook's job is spooled under it before its transcript grows)."""
    cutoff = (time.time() if now is None else now) - days * DAY
    files = freed = 0
    if not provenance.dir.is_dir():
        return Pruned(0, 0)
    with lock.exclusive(home.lock):
        busy = {job.session_id for job in spool.jobs()}
        for path in sorted(provenance.dir.glob("*.jsonl")):
            session_id = path.name.removesuffix(".jsonl")
            if not SESSION_ID_RE.match(session_id) or session_id in busy:
                continue
            try:
                if path.stat().st_mtime >= cutoff:
                    continue
            except FileNotFoundError:
                continue
            freed += provenance.prune(session_id)
            files += 1
    if files:
        logger.info("pruned %d transcript(s) older than %d days (%d bytes)", files, days, freed)
    return Pruned(files, freed)


@dataclass(frozen=True, slots=True)
class Kept:
    """The transcripts kept: how many, their size, the oldest's time, for how long."""

    files: int
    bytes: int
    oldest: str | None
    retention_days: int


def kept(provenance: Provenance, days: int) -> Kept:
    """What ``status`` says of the transcripts kept: how many, their size, the oldest."""
    files = size = 0
    oldest: float | None = None
    if provenance.dir.is_dir():
        for path in provenance.dir.glob("*.jsonl"):
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            files += 1
            size += st.st_size
            oldest = st.st_mtime if oldest is None else min(oldest, st.st_mtime)
    return Kept(files=files, bytes=size,
                oldest=None if oldest is None else
                datetime.fromtimestamp(oldest, UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                retention_days=days)
