"""How long the suite's waits are: each a guard against a hang, never a timing check, scaled by
one factor so that a loaded machine (other test runs, 8 engineers on 2 cores) fails no test by
chance, and an idle one still fails a hung test soon.

``ZETTELCLAW_TEST_TIME_FACTOR`` sets the factor; else it is measured once per process: the
larger of the time a fixed piece of hashing takes against what it takes on an idle core, and
the load average per core, between 1 and ``MAX_FACTOR``. pytest's header says which
(conftest.py), so a timeout in a report says how loaded the machine was.
"""

from __future__ import annotations

import hashlib
import os
import time

ENV = "ZETTELCLAW_TEST_TIME_FACTOR"
REFERENCE_SECONDS = 0.02  # the hashing below on an idle core of a 2024 laptop
MAX_FACTOR = 10.0


def _measure() -> tuple[float, str]:
    given = os.environ.get(ENV)
    if given:
        return max(float(given), 0.1), f"{ENV}={given}"
    data = b"\0" * (4 << 20)
    started = time.perf_counter()
    for _ in range(4):
        hashlib.sha256(data).digest()
    slow = (time.perf_counter() - started) / REFERENCE_SECONDS
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    factor = min(max(1.0, slow, load), MAX_FACTOR)
    return factor, f"measured: hashing {slow:.1f}x an idle core, load {load:.1f} a core"


FACTOR, HOW = _measure()


def scaled(seconds: float) -> float:
    """``seconds`` on an idle machine, as long as they are on this one now."""
    return seconds * FACTOR
