"""Stopping an import's reading from outside the thread that does it.

A plan or a slice of an apply reads its source in a worker thread (``methods/importing``), which
trio cannot interrupt: a sidecar told to stop would wait for a multi-gigabyte export to be read
to its end. The thread runs under ``run`` with an event the sidecar sets when it stops; the
reading calls ``check`` between items and between the chunks of a scan, and ends with
``Stopped`` once the event is set.

A long reading also says how far it got (``progress``): to ``on_progress`` when one is set (the
CLI draws it on stderr when it imports in its own process), else to the log (the sidecar's).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_local = threading.local()
logger = logging.getLogger(__name__)
# where ``progress`` goes when set (the process's one importer front end: the CLI)
on_progress: Callable[[str], None] | None = None


class Stopped(Exception):
    """The reading was asked to stop (the sidecar is stopping)."""


def check() -> None:
    """Raise ``Stopped`` if this thread's reading was asked to stop."""
    stop: threading.Event | None = getattr(_local, "stop", None)
    if stop is not None and stop.is_set():
        raise Stopped


def run(stop: threading.Event, work: Callable[[], T]) -> T:
    """``work()`` in this thread, stopping at its next ``check`` once ``stop`` is set."""
    _local.stop = stop
    try:
        return work()
    finally:
        _local.stop = None


def progress(text: str) -> None:
    """Say how far a long reading got (``on_progress``, else the log)."""
    if on_progress is not None:
        on_progress(text)
    else:
        logger.info("import: %s", text)
