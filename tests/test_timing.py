"""tests/timing.py: the factor the suite's waits are scaled by."""

from __future__ import annotations

import os
import subprocess
import sys

from tests import timing


def factor_with(env: dict[str, str]) -> float:
    done = subprocess.run([sys.executable, "-c", "from tests import timing; print(timing.FACTOR)"],
                          env=env, capture_output=True, text=True, check=True,
                          timeout=timing.scaled(60), cwd=os.getcwd())
    return float(done.stdout)


def test_the_factor_is_the_one_set_or_measured_within_bounds() -> None:
    env = {k: v for k, v in os.environ.items() if k != timing.ENV}
    assert factor_with({**env, timing.ENV: "3"}) == 3.0
    assert 1.0 <= factor_with(env) <= timing.MAX_FACTOR
    assert timing.scaled(10) == 10 * timing.FACTOR
