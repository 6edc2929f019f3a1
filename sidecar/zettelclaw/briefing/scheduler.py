"""The sidecar's own briefing schedule: at start when the last run is older than a day, then at
every time ``cron.schedule`` names, in ``cron.timezone`` (``off``: never).

The wait is a series of naps of at most a minute, each checked against the wall clock, so a
machine that slept through the night, or a clock that was set, is noticed within a minute (a run
missed while the machine was off is made up by the run at start). A run that fails is logged and
recorded in state.json; the schedule goes on.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol

import trio

from zettelclaw import schedule
from zettelclaw.briefing import record
from zettelclaw.errors import ZettelclawError
from zettelclaw.home import Home
from zettelclaw.index.freshness import SyncStoppedError
from zettelclaw.log.schema import parse_timestamp

logger = logging.getLogger(__name__)

MAX_NAP = 60.0
START_AFTER = 86_400.0  # run at start when the last run is older than a day

Sleep = Callable[[float], Awaitable[None]]


class Ran(Protocol):
    """What the schedule logs of a run."""

    @property
    def path(self) -> str: ...

    @property
    def lines(self) -> int: ...

    @property
    def changed(self) -> bool: ...


class Briefs(Protocol):
    """What the schedule drives: one memory's ``Briefing``, or every memory's
    (``agents/briefings.py``)."""

    home: Home
    cron: schedule.Cron | None

    def clock(self) -> float: ...

    def next_run(self) -> datetime | None: ...

    def record_next(self, when: datetime | None) -> None: ...

    async def generate(self, *, trigger: str, wait: float) -> Ran: ...


class Scheduler:
    def __init__(self, briefing: Briefs, sleep: Sleep = trio.sleep) -> None:
        self.briefing = briefing
        self.sleep = sleep
        self.runs = 0  # runs finished (or failed) since start

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        briefing = self.briefing
        task_status.started()
        if briefing.cron is None:
            await trio.to_thread.run_sync(briefing.record_next, None)
            logger.info("briefing: cron.schedule is off; it runs only when asked")
            return
        saved = await trio.to_thread.run_sync(record.load, briefing.home)
        if self.due_at_start(saved.last_run):
            await self._run("start")
        while True:
            upcoming = briefing.next_run()
            assert upcoming is not None
            await trio.to_thread.run_sync(briefing.record_next, upcoming)
            await self._until(upcoming)
            await self._run("schedule")

    def due_at_start(self, last_run: object) -> bool:
        try:
            last = parse_timestamp(str(last_run)).timestamp() if last_run else None
        except ValueError:
            last = None
        return last is None or self.briefing.clock() - last > START_AFTER

    async def _until(self, when: datetime) -> None:
        while (remaining := when.timestamp() - self.briefing.clock()) > 0:
            await self.sleep(min(remaining, MAX_NAP))

    async def _run(self, trigger: str) -> None:
        try:
            result = await self.briefing.generate(trigger=trigger, wait=math.inf)
        except ZettelclawError as exc:
            logger.warning("briefing (%s) failed: %s", trigger, exc.message)
        except SyncStoppedError:  # the sidecar is stopping: the next start catches up
            logger.info("briefing (%s) stopped for shutdown", trigger)
        except Exception:
            logger.exception("briefing (%s) failed", trigger)
        else:
            logger.info("briefing (%s): %s, %d lines%s", trigger, result.path,
                        result.lines, "" if result.changed else " (unchanged)")
        finally:
            self.runs += 1
