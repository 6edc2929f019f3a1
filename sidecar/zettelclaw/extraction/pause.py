"""Why the model cannot be asked now, and until when: one object owns it.

No key, no host, an endpoint down or rate limited is true of every job: the whole queue pauses
rather than every job finding it out on its own. The worker reports what the model said
(``waiting``, ``answered``), a route becoming usable or a retry lifts the pause (``lift``), and
``status`` reads ``reason``. Nothing else sets these fields.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)


class ModelPause:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.reason: str | None = None  # why jobs wait, for status; None when nothing waits
        self.until = 0.0  # Unix time before which no job is started

    def waiting(self, reason: str, seconds: float) -> None:
        """The model cannot be asked for ``seconds``; said in the log once per reason."""
        if reason != self.reason:
            logger.warning("extraction waits: %s", reason)
        self.reason = reason
        self.until = self.clock() + seconds

    def answered(self) -> None:
        """The model was reached (with an answer or a failure): nothing to wait for."""
        self.reason = None

    def lift(self) -> None:
        """Ask again now: a route became usable, or a person asked for a retry."""
        self.reason = None
        self.until = 0.0

    def active(self) -> bool:
        return self.clock() < self.until
