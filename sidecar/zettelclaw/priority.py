"""Background work at a lower CPU priority, so that what a caller waits for runs first.

Linux keeps a nice value per thread (``setpriority`` of "process" 0 is the calling thread's),
and a thread inherits its maker's: lowering the thread that makes the workers (onnxruntime's,
tantivy's) lowers them all. Elsewhere a nice value is the whole process's, so only a process of
its own (a helper) lowers itself there.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress


def lower_this_thread(by: int) -> None:
    """This thread, and the threads it makes from now on, ``by`` nice levels lower (at most
    19). Linux only: elsewhere it would lower the whole process."""
    if sys.platform == "linux":
        _lower(by)


def lower_this_process(by: int) -> None:
    """A helper process of its own, from its main thread before it makes any other."""
    _lower(by)


def _lower(by: int) -> None:
    with suppress(OSError):  # not allowed here (a sandbox): the work runs at the usual priority
        os.setpriority(os.PRIO_PROCESS, 0, min(os.getpriority(os.PRIO_PROCESS, 0) + by, 19))
