"""The sidecar's team task for one memory: a round when the database says something changed
(LISTEN), when the local log moved, and every ``PERIOD`` seconds; reconnect with backoff.

Two connections while connected: one LISTENs (autocommit; its socket is what trio waits on),
one does the rounds in a worker thread. Unreachable: local work goes on (the log is the truth;
nothing waits on the database), the error is kept in ``team-state.json`` for ``team status``,
and the task tries again after 1 s, doubling to 60 s; the first round back publishes what was
written meanwhile and takes what the others wrote (team.py). A memory that is not a team memory
costs a stat every ``IDLE_CHECK`` seconds, so ``team init`` needs no restart.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import psycopg
import trio

from zettelclaw.home import Home
from zettelclaw.replicate import pg_store, team

logger = logging.getLogger(__name__)

TICK = 0.1  # how often the local log is looked at (one stat): a new entry leaves within it
PERIOD = 60.0  # a round at least this often, for what no NOTIFY announced (a lost connection)
IDLE_CHECK = 5.0
FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0


class TeamTask:
    def __init__(self, home: Home, purge_local: team.PurgeLocal) -> None:
        self.home = home
        self.purge_local = purge_local
        self.rounds = 0  # rounds done
        self.news = trio.Event()  # set (and made anew) after each round and each failure

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        task_status.started()
        backoff = FIRST_BACKOFF
        while True:
            dsn = await trio.to_thread.run_sync(team.load_dsn, self.home)
            if dsn is None:
                await trio.sleep(IDLE_CHECK)
                continue
            try:
                await self._connected(dsn)
            except pg_store.TeamDbError as exc:
                await trio.to_thread.run_sync(self._failed, exc)
                self._tell()
                logger.warning("team memory %s: %s; again in %g s", self.home.root, exc,
                               backoff)
                await trio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
                continue
            backoff = FIRST_BACKOFF  # left on purpose (team leave / another DSN)

    def _failed(self, exc: pg_store.TeamDbError) -> None:
        state = team.State.load(self.home)
        state.failed(self.home, exc)

    async def _connected(self, dsn: str) -> None:
        """Until the settings change (returns) or the database fails (TeamDbError)."""
        listener = await trio.to_thread.run_sync(
            lambda: pg_store.open_connection(dsn, autocommit=True))
        try:
            worker = await trio.to_thread.run_sync(pg_store.open_connection, dsn)
            try:
                with pg_store.translated():
                    await self._follow(dsn, listener, worker)
            finally:
                await _close(worker)
        finally:
            await _close(listener)

    async def _follow(self, dsn: str, listener: psycopg.Connection[Any],
                      worker: psycopg.Connection[Any]) -> None:
        await trio.to_thread.run_sync(pg_store.listen, listener)
        # the log's mark taken before each round: a write during the round moves it again
        mark = team.log_mark(self.home)
        await self._round(worker)
        last = time.monotonic()
        while True:
            woke = await self._wait(listener, TICK)
            now = time.monotonic()
            moved = team.log_mark(self.home)
            if woke or moved != mark or now - last >= PERIOD:
                if team.load_dsn(self.home) != dsn:  # left, or another database
                    return
                mark, last = moved, now
                await self._round(worker)

    async def _round(self, conn: psycopg.Connection[Any]) -> None:
        done = await trio.to_thread.run_sync(team.sync_once, self.home, conn, self.purge_local)
        self.rounds += 1
        if done.pushed or done.appended or done.purges:
            logger.debug("team round: %s", done)
        self._tell()

    def _tell(self) -> None:
        self.news.set()
        self.news = trio.Event()

    @staticmethod
    async def _wait(conn: psycopg.Connection[Any], seconds: float) -> bool:
        """Whether a notification came within ``seconds`` (all waiting ones are read)."""
        with trio.move_on_after(seconds):
            await trio.lowlevel.wait_readable(conn.pgconn.socket)
        try:
            return bool(list(conn.notifies(timeout=0)))
        except psycopg.OperationalError as exc:
            raise pg_store.TeamDbError(f"the team database went away: {exc}",
                                       reachable=False) from exc


async def _close(conn: psycopg.Connection[Any]) -> None:
    """Closed even when the task is cancelled (the sidecar stopping): a round in its thread
    finishes first, then the connection goes."""
    with trio.CancelScope(shield=True):
        await trio.to_thread.run_sync(conn.close)
