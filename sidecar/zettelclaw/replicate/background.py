"""The sidecar's background sync of one memory: every ``sync.intervalSeconds``, and
``sync.afterWriteSeconds`` after the log grows (one ``stat`` a second while nothing changes).

Nothing runs for a memory without ``HOME/replicate/sync.json`` (sync is opt-in, per memory): it
is looked for once a period, so a ``sync init`` made while the sidecar serves is picked up. A
failure (the remote unreachable) is logged, at most once per distinct message, and tried again
at the next period; local work goes on.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable

import trio

from zettelclaw.errors import LockTimeoutError, SyncError
from zettelclaw.home import Home
from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.replicate.git_sync import PurgeLocal, SyncReport, sync
from zettelclaw.replicate.settings import config_path

logger = logging.getLogger(__name__)
LOOK_SECONDS = 1.0


class BackgroundSync:
    def __init__(self, home: Home, *, interval: float, after_write: float,
                 purge_local: PurgeLocal, caught_up: Callable[[SyncReport], Awaitable[object]],
                 name: str) -> None:
        """``caught_up``: run after a sync that changed the log (the index and the briefing
        catch up at once rather than at their next look)."""
        self.home = home
        self.interval = interval
        self.after_write = after_write
        self.purge_local = purge_local
        self.caught_up = caught_up
        self.name = name
        self.syncs = 0  # (tests)
        self._last_error: str | None = None
        self.wake = trio.Event()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        task_status.started()
        if self.interval <= 0 and self.after_write <= 0:
            return
        next_sync = trio.current_time()  # at start: catch up with what came while away
        seen = LogStat.of(self.home.log)
        changed_at: float | None = None
        while True:
            now = trio.current_time()
            stat = LogStat.of(self.home.log)
            if stat != seen:
                seen = stat
                if self.after_write > 0:
                    changed_at = now
            due = changed_at is not None and now >= changed_at + self.after_write
            if (due or now >= next_sync or self.wake.is_set()) and config_path(self.home).exists():
                changed_at = None
                self.wake = trio.Event()
                await self._once()
                seen = LogStat.of(self.home.log)  # what it took in is not a new write
                next_sync = trio.current_time() + (self.interval if self.interval > 0
                                                   else math.inf)
            elif now >= next_sync:
                next_sync = now + (self.interval if self.interval > 0 else math.inf)
            with trio.move_on_after(LOOK_SECONDS):
                await self.wake.wait()

    async def _once(self) -> None:
        try:
            report = await trio.to_thread.run_sync(
                lambda: sync(self.home, self.purge_local, wait=0.5))
        except LockTimeoutError:
            return  # a `zettelclaw sync` runs: it does the same
        except SyncError as exc:
            if exc.message != self._last_error:
                logger.warning("sync of %s failed (tried again in %g s): %s", self.name,
                               self.interval, exc.message)
            self._last_error = exc.message
            return
        self.syncs += 1
        if self._last_error is not None:
            logger.info("sync of %s works again", self.name)
            self._last_error = None
        if report.pulled or report.purges_applied:
            await self.caught_up(report)
