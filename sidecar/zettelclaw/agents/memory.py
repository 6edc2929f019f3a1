"""One memory of the pool: its slot (the calls holding it, when it was last used, its
background work), opening it, and when the extraction jobs in its spool are due; which memories
on disk have jobs waiting, and which follow a team's database.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import trio

from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.roster import ensure_memory_home, memories_on_disk, memory_home
from zettelclaw.app import App, build_app
from zettelclaw.config import Config
from zettelclaw.extraction.spool import Job, Spool
from zettelclaw.home import Home
from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.llm.route import Router
from zettelclaw.replicate import team

SYNC_AT_OPEN_BYTES = 1 << 20  # a cold index of a log this small is built as the memory opens


@dataclass(eq=False)
class Slot:
    memory: str
    app: App
    leases: int = 0
    last_used: float = field(default_factory=time.monotonic)
    scope: trio.CancelScope | None = None  # the background work, when serving
    stopped: trio.Event = field(default_factory=trio.Event)
    unleased: trio.Event = field(default_factory=trio.Event)  # set when leases drop to 0
    for_work: bool = False  # opened for its waiting extraction jobs, no call has used it since


def open_memory(root: Home, memory: str, workspace: Path, settings: Config, *, serving: bool,
                router: Router, transcript_roots: tuple[Path, ...]) -> App:
    """The App of ``memory`` (its data directory made if new), caught up when that is quick."""
    home = ensure_memory_home(root, memory)
    app = build_app(home, workspace, settings, serving=serving, router=router,
                    transcript_roots=transcript_roots, memory=memory)
    # A memory reopened after idling has an index that is a little behind at most, and a new
    # agent a small log: catch up now, so that the call that opened it (often the hook before a
    # turn) sees every entry. A long way to go (a cold index of a large log) is left to the
    # background, while the hook answers from what there is.
    log = LogStat.of(home.log)
    with app.index.read() as conn:
        indexed = int(str(app.index.meta(conn).get("offset", 0)))
    if log is not None and log.size - indexed <= SYNC_AT_OPEN_BYTES:
        try:
            app.freshness.sync()
        except Exception:
            app.close()
            raise
    return app


def first_due(jobs: list[Job]) -> float | None:
    """When the first job that may still run is due (Unix time), or None for none."""
    times = [job.not_before or 0.0 for job in jobs if job.state != "failed"]
    return min(times) if times else None


def memories_with_work(root: Home) -> dict[str, float]:
    """The memories but ``main`` whose spool holds jobs (they must go on after a restart), with
    when the first is due."""
    waiting: dict[str, float] = {}
    for memory in memories_on_disk(root):
        if memory == MAIN or not any((memory_home(root, memory).root / "spool").glob("*.json")):
            continue
        due = first_due(Spool(memory_home(root, memory)).jobs())
        if due is not None:
            waiting[memory] = due
    return waiting


def memories_in_teams(root: Home) -> list[str]:
    return [memory for memory in memories_on_disk(root)
            if memory != MAIN and team.configured(memory_home(root, memory))]
