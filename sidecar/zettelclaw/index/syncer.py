"""The trio side of ``index/freshness.py``: catching up without stalling the hot path.

Reads that must see every entry (search, get) wait for a catch-up. The hook that runs before
every agent turn never waits for one when serving: it answers from the index as it is, and the
memory's watcher (``watch``) looks at the log every ``WATCH_SECONDS`` and catches up in the
background, so an entry another process appends reaches the hook within about that long, with
no call waiting for it. A catch-up of another process's appends waits for
the index's connection (held by a search for up to hundreds of ms under load) and for the data
lock (held by that writer), which a hook cannot afford (bench/README.md#load).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from typing import TypeVar

import trio

from zettelclaw import freed_memory
from zettelclaw.errors import IndexNotReadyError
from zettelclaw.index.freshness import Freshness, SyncStoppedError
from zettelclaw.machine_state import machine_state

logger = logging.getLogger(__name__)

INDEX_WAIT_SECONDS = 10.0
WATCH_SECONDS = 1.0  # how often a serving memory's watcher looks for appends by other processes
T = TypeVar("T")


class Syncer:
    def __init__(self, freshness: Freshness, on_change: Callable[[], None] | None = None) -> None:
        self.freshness = freshness
        self._lock = trio.Lock()
        self._on_change = on_change  # told after each catch-up (the vectorizer)
        # set when the catch-up after start has ended, done or not: work that can wait (the
        # SDK's import) waits for it, and leaves a cold build the CPU and the GIL
        self.first_catch_up = trio.Event()
        self.stale: str | None = None  # why the last catch-up could not be made (a full disk)
        self.watching = False  # a watcher runs (serving): the hook never catches up itself

    async def fresh(self, wait: float = INDEX_WAIT_SECONDS) -> None:
        """Bring the index up to date, waiting at most ``wait`` s for a catch-up under way."""
        if not self.freshness.needs_sync():
            return
        with trio.move_on_after(wait) as waited:
            await self._lock.acquire()
        if waited.cancelled_caught:
            progress = self.freshness.progress
            data = {"bytesIndexed": progress[0], "bytesTotal": progress[1]} if progress else None
            raise IndexNotReadyError(
                "the search index is still being built; try again shortly", data)
        large = False
        try:
            if self.freshness.needs_sync():
                try:
                    report = await trio.to_thread.run_sync(self.freshness.sync)
                except (OSError, sqlite3.OperationalError) as exc:
                    cause = machine_state(exc)
                    if cause is None:
                        raise
                    # a full disk or a read-only one: reads answer from the index as it is
                    logger.warning("the index cannot be brought up to date (%s); answering "
                                   "from it as it is", cause)
                    self.stale = f"the log could not be indexed up to its end: {cause}"
                    return
                self.stale = None
                large = report.rebuilt or report.entries >= freed_memory.AFTER_ENTRIES
                if self._on_change is not None:
                    self._on_change()
        finally:
            self._lock.release()
        if large:  # after the lock: reads waiting for the catch-up need not wait for this too
            await trio.to_thread.run_sync(freed_memory.give_back)

    async def exclusive(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` in a thread as the only catch-up (a rebuild): meanwhile the hook answers
        from what it has, and reads wait."""
        async with self._lock:
            result = await trio.to_thread.run_sync(fn)
        await trio.to_thread.run_sync(freed_memory.give_back)
        if self._on_change is not None:
            self._on_change()
        return result

    async def fresh_if_quick(self) -> None:
        """For the hot path: catch up only when no other catch-up is under way."""
        if self.freshness.needs_sync() and not self._lock.locked():
            await self.fresh()

    async def fresh_for_hook(self) -> None:
        """For the hook before every turn: when a watcher runs, nothing (it looks at the log
        every ``WATCH_SECONDS``; the answer comes from the index as it is); otherwise
        ``fresh_if_quick``. Not even a stat: each system call lets go of the GIL, and under
        load the event loop waited up to a switch interval (5 ms) to take it back."""
        if not self.watching:
            await self.fresh_if_quick()

    async def watch(self) -> None:
        """Serving: after the first catch-up, look at the log every ``WATCH_SECONDS`` and catch
        up with what it gained (another process's appends), until cancelled."""
        self.watching = True
        failed: str | None = None
        try:
            await self.first_catch_up.wait()
            while True:
                await trio.sleep(WATCH_SECONDS)
                if not self.freshness.needs_sync():
                    continue
                try:
                    await self.fresh(wait=float("inf"))
                except SyncStoppedError:
                    return
                except Exception as exc:  # tried again at the next look; said once
                    if str(exc) != failed:
                        logger.exception("catching up with the log failed; trying again")
                    failed = str(exc)
                else:
                    failed = None
        finally:
            self.watching = False

    async def background(self) -> None:
        """The first catch-up after start, so that a cold index builds while we serve."""
        try:
            await self.fresh(wait=float("inf"))
        except SyncStoppedError:
            logger.info("indexing stopped for shutdown; it resumes at the next start")
        except Exception:
            logger.exception("indexing the log failed; requests will try again")
        finally:
            self.first_catch_up.set()
