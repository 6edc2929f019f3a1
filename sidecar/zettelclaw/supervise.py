"""Background tasks that outlive their own failures, and a log that an outage cannot flood.

Every long-running task of ``serve`` (the extraction loop, the vectorizer, the briefing's
schedule, the first index catch-up) runs under ``supervised``: a failure after the task has
started is logged with its traceback and the task starts again after a backoff (1 s doubling to
60 s), instead of taking the whole process, and every client's connection, down with it. A task
that fails before it reports started still fails the start: that is a refusal to serve (a bad
socket path, a locked data directory), which the caller must see.

``RateLimit`` is a logging filter: the same message from one logger at most once a minute, with
the count of the ones left out. Trio's accept loop logs each EMFILE it meets, ten times a
second, for as long as the process is out of file descriptors.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from zettelclaw.panics import is_panic

logger = logging.getLogger(__name__)

FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0


class _Started(trio.TaskStatus[Any]):
    def __init__(self, outer: trio.TaskStatus[Any]) -> None:
        self.outer = outer
        self.done = False

    def started(self, value: Any = None) -> None:
        if not self.done:
            self.done = True
            self.outer.started(value)


async def supervised(name: str, run: Callable[..., Awaitable[None]], *,
                     task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
    """Run ``run(task_status=...)`` until it returns; restart it when it fails after starting."""
    status = _Started(task_status)
    backoff = FIRST_BACKOFF
    while True:
        try:
            await run(task_status=status)
            return
        except BaseException as exc:  # an Exception, or a Rust panic (panics.py); not Cancelled
            if not (isinstance(exc, Exception) or is_panic(exc)) or not status.done:
                raise
            logger.exception("%s failed; it starts again in %g s", name, backoff)
        await trio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF)


class RateLimit(logging.Filter):
    """At most one record a ``period`` per message template; the next one says how many
    were left out."""

    def __init__(self, period: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.period = period
        self.clock = clock
        self._last: dict[str, tuple[float, int]] = {}  # template -> (last shown, left out)

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        shown, left_out = self._last.get(record.msg, (-float("inf"), 0))
        if now - shown < self.period:
            self._last[record.msg] = (shown, left_out + 1)
            return False
        self._last[record.msg] = (now, 0)
        if left_out:
            record.msg = f"{record.msg} ({left_out} more like it in the last {self.period:g} s)"
        return True


def quiet_accept_errors() -> None:
    """Rate-limit trio's "accept returned EMFILE" lines (once, for the process)."""
    trio_logger = logging.getLogger("trio.serve_listeners")
    if not any(isinstance(f, RateLimit) for f in trio_logger.filters):
        trio_logger.addFilter(RateLimit())
