"""priority.py: background work lowered, the caller left as it was.

Covers: a thread lowers itself and the threads it makes, not its maker; a helper process lowers
itself (and its threads); the nice value stops at 19.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

from tests.timing import scaled
from zettelclaw import priority

pytestmark = pytest.mark.skipif(sys.platform != "linux",
                                reason="a nice value per thread is Linux's")


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)  # (on Linux: this thread's)


def test_a_thread_lowers_itself_and_the_threads_it_makes_not_its_maker() -> None:
    ours = _nice()
    seen: dict[str, int] = {}

    def child() -> None:
        seen["child"] = _nice()

    def background() -> None:
        priority.lower_this_thread(3)
        seen["lowered"] = _nice()
        made = threading.Thread(target=child)
        made.start()
        made.join()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    assert seen == {"lowered": min(ours + 3, 19), "child": min(ours + 3, 19)}
    assert _nice() == ours


def test_a_helper_process_lowers_itself_and_its_threads() -> None:
    code = ("import os, threading; from zettelclaw import priority;"
            " priority.lower_this_process(5); out = [];"
            " t = threading.Thread(target=lambda: out.append(os.getpriority(os.PRIO_PROCESS, 0)));"
            " t.start(); t.join(); print(os.getpriority(os.PRIO_PROCESS, 0), out[0])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=scaled(60), check=True)
    expected = min(_nice() + 5, 19)
    assert done.stdout.split() == [str(expected), str(expected)]


def test_the_nice_value_stops_at_19() -> None:
    seen: list[int] = []

    def background() -> None:
        priority.lower_this_thread(100)
        seen.append(_nice())

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    assert seen == [19]
