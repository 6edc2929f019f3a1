"""Ending a torn last line of the log as soon as it is seen, not at the sidecar's next append.

A crash mid-append (or ``printf`` without a newline) leaves the log's last line unfinished. Until
a newline ends it, anything appended next, by the sidecar or by ``echo >> log.jsonl``, would
continue that line, and both would be lost as one invalid line. The sidecar's own appends always
end it first (``LogStore``); this task does it for everyone else's: at start, and then whenever
the log has ended without a newline and not moved for ``SETTLE_SECONDS`` (a writer in the middle
of a line is given that long to finish it). The torn bytes stay, reported as an invalid line.
An entry appended within that second continues the torn line: the reader then takes the entry
from the end of the line (``log/lines.py``), and reports the bytes before it.
"""

from __future__ import annotations

import logging
import os

import trio

from zettelclaw import lock
from zettelclaw.files import ends_with_newline
from zettelclaw.home import Home
from zettelclaw.log.store import LogStore

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 1.0
POLL_SECONDS = 0.5


class TailMender:
    def __init__(self, home: Home) -> None:
        self.home = home
        self.store = LogStore(home)

    def mend_locked(self, size: int | None = None) -> bool:
        if self.store.end_last_line_locked(size):
            logger.warning("the log's last line was unfinished (a crash, or a line written "
                           "without its newline); ended it so that the next entry starts a "
                           "line of its own; its bytes stay, as an invalid line")
            return True
        return False

    def mend(self, size: int | None = None) -> bool:
        with lock.exclusive(self.home.lock):
            return self.mend_locked(size)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        await trio.to_thread.run_sync(self.mend)  # a crash's torn line, before anyone appends
        task_status.started()
        seen: tuple[int, int] | None = None  # (size, mtime_ns) of the log when last looked at
        unfinished = False
        since = 0.0
        while True:
            await trio.sleep(POLL_SECONDS)
            try:
                st = os.stat(self.home.log)
            except FileNotFoundError:
                continue
            now = trio.current_time()
            if (st.st_size, st.st_mtime_ns) != seen:  # moved: look at its last byte again
                seen, since = (st.st_size, st.st_mtime_ns), now
                unfinished = st.st_size > 0 and not await trio.to_thread.run_sync(
                    _ends_with_newline, self.home)
            elif unfinished and now - since >= SETTLE_SECONDS:
                await trio.to_thread.run_sync(self.mend, st.st_size)
                unfinished = False


def _ends_with_newline(home: Home) -> bool:
    fd = os.open(home.log, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        return ends_with_newline(fd)
    finally:
        os.close(fd)
