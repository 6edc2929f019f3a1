"""The briefing schedule over every memory: each run briefs each memory into its own
workspace's MEMORY.md (``briefing/scheduler.py`` drives it as it drives a single ``Briefing``).

A memory whose agent's workspace the sidecar was never told of, and that does not exist, is
skipped (logged): the briefing writes where OpenClaw reads, not into a guessed directory. A
memory that cannot be briefed does not stop the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from zettelclaw import lock, schedule
from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.pool import Agents
from zettelclaw.agents.roster import memories_on_disk, memory_home
from zettelclaw.briefing import record
from zettelclaw.briefing.service import BriefingRun
from zettelclaw.errors import ZettelclawError

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class AllRan:
    """A scheduled run over every memory: the MEMORY.md files, their block lines in all."""

    path: str
    lines: int
    changed: bool
    memories: int


class AgentBriefings:
    def __init__(self, agents: Agents, *, clock: Callable[[], float] = time.time) -> None:
        self.agents = agents
        self.home = agents.root  # main's record says whether a run at start is due
        self.clock = clock
        self.zone = schedule.zone(agents.settings.cron.timezone)
        self.cron = schedule.schedule(agents.settings.cron.schedule)

    def stamp(self, ts: float) -> str:
        return datetime.fromtimestamp(ts, self.zone).isoformat(timespec="seconds")

    def next_run(self) -> datetime | None:
        if self.cron is None:
            return None
        return self.cron.next_after(datetime.fromtimestamp(self.clock(), UTC), self.zone)

    def memories(self) -> list[str]:
        """The memories a run briefs: those on disk that are their own (not an agent's old
        directory from before it shared another's memory)."""
        roster = self.agents.roster
        return [m for m in memories_on_disk(self.agents.root) if roster.memory_of(m) == m]

    def record_next(self, when: datetime | None) -> None:
        value = None if when is None else self.stamp(when.timestamp())
        for memory in self.memories():
            home = memory_home(self.agents.root, memory)
            with lock.exclusive(home.lock):
                record.next_locked(home, value)

    async def generate(self, *, trigger: str, wait: float) -> AllRan:
        done: list[BriefingRun] = []
        for memory in self.memories():
            workspace = self.agents.roster.workspace_of(memory)
            if memory != MAIN and (workspace is None or not workspace.is_dir()):
                logger.info("briefing: agent %s has no workspace yet (the host names it when the "
                            "gateway starts); skipped", memory)
                continue
            try:
                async with self.agents.lease(memory) as app:
                    done.append(await app.briefing.generate(trigger=trigger, wait=wait))
            except ZettelclawError as exc:
                logger.warning("briefing (%s) of agent %s failed: %s", trigger, memory,
                               exc.message)
        return AllRan(path=", ".join(r.path for r in done), lines=sum(r.lines for r in done),
                      changed=any(r.changed for r in done), memories=len(done))
