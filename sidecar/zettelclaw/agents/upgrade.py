"""From one memory for every agent to one memory per agent: what moves at the upgrade.

A home from before per-agent memory stays where it is, as ``main``'s memory (``roster``): its
log, index, subjects and the entries already extracted keep working, whichever agent they came
from (nothing in the log says which; nothing is guessed or rewritten). What is still in flight
does move: a spooled job of another agent (accepted from that agent's hook, not yet extracted)
goes to that agent's memory, with the provenance transcript of its session, so that its entries
land where they belong.

Each move is one ``rename`` (atomic), transcript first, then the job, under main's data lock,
before any memory is opened. A crash between the two leaves the job in main's spool and its
transcript already moved: the next start (this runs at every start; with nothing to move it is
one listing of main's spool) moves the job and finds the transcript in place. Nothing is copied,
so nothing can exist twice.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from zettelclaw import failpoints, lock
from zettelclaw.agent_ids import MAIN, AgentIdError, chosen_agent
from zettelclaw.agents.roster import ensure_memory_home
from zettelclaw.extraction.provenance import Provenance
from zettelclaw.extraction.spool import Spool
from zettelclaw.files import fsync_dir
from zettelclaw.home import DIR_MODE, Home

logger = logging.getLogger(__name__)


def move_foreign_jobs(main: Home, memory_of: Callable[[str], str]) -> int:
    """Move the jobs in main's spool that belong to another memory there; returns how many.
    ``memory_of(agent)`` is the memory an agent uses (``main`` when it shares main's)."""
    spool = Spool(main)
    if not spool.dir.is_dir() or not any(spool.dir.glob("*.json")):
        return 0
    moved = 0
    with lock.exclusive(main.lock):
        provenance = Provenance(main)
        for job in spool.jobs():
            try:
                agent = chosen_agent(job.agent_id, job.session_key)
            except AgentIdError:
                logger.warning("job %s names no usable agent (%r, %r); it stays in main's "
                               "memory", job.job_id, job.agent_id, job.session_key)
                continue
            memory = memory_of(agent)
            if memory == MAIN:
                continue
            target = ensure_memory_home(main, memory)
            _move(provenance.path(job.session_id), Provenance(target).path(job.session_id))
            failpoints.reach("upgrade-after-transcript")
            _move(spool.path(job.job_id), Spool(target).path(job.job_id))
            logger.info("moved job %s (session %s) to agent %s's memory", job.job_id,
                        job.session_id, agent)
            moved += 1
    return moved


def _move(source: Path, target: Path) -> None:
    """Rename, durably. A source already gone (moved before a crash) is fine; a target that
    exists already is left alone, and the source with it (logged): never overwrite."""
    if not source.exists():
        return
    if target.exists():
        logger.warning("%s exists already: %s stays where it is", target, source)
        return
    target.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.rename(source, target)
    fsync_dir(target.parent)
    fsync_dir(source.parent)
