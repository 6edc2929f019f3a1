"""failpoints.py: named crash points that are free when unset and a SIGKILL when named.

Covers reach(): a no-op for every point without ZETTELCLAW_FAILPOINT, or with another point named;
and, in a subprocess with the variable set, death by SIGKILL exactly at that point (what came
before it ran, what comes after it did not), while a process naming another point runs to the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.timing import scaled
from zettelclaw import failpoints

SCRIPT = """
from zettelclaw import failpoints
for point in failpoints.POINTS:
    print("before", point, flush=True)
    failpoints.reach(point)
    print("after", point, flush=True)
print("end", flush=True)
"""


def run(point: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != failpoints.ENV}
    if point is not None:
        env[failpoints.ENV] = point
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=scaled(60), check=False,
                          cwd=Path(__file__).resolve().parent.parent)


def test_reach_is_a_no_op_without_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(failpoints.ENV, raising=False)
    for point in failpoints.POINTS:
        failpoints.reach(point)  # returns: no exit, no exception
    failpoints.reach("not-a-point")


def test_reach_ignores_the_other_points(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(failpoints.ENV, "after-append")
    for point in failpoints.POINTS[:-1]:
        assert point != "after-append"
        failpoints.reach(point)
    monkeypatch.setenv(failpoints.ENV, "no-such-point")
    for point in failpoints.POINTS:
        failpoints.reach(point)


def test_without_the_variable_a_process_runs_to_the_end() -> None:
    result = run(None)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "end"


@pytest.mark.parametrize("point", ["after-spool", "after-result"])
def test_the_named_point_kills_the_process(point: str) -> None:
    result = run(point)
    assert result.returncode == -signal.SIGKILL
    lines = result.stdout.splitlines()
    assert lines[-1] == f"before {point}"
    index = failpoints.POINTS.index(point)
    assert lines == [f"{when} {p}" for p in failpoints.POINTS[:index]
                     for when in ("before", "after")] + [f"before {point}"]
