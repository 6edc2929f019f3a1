"""Background tasks survive their failures; a flood of identical log lines is thinned."""

from __future__ import annotations

import logging

import pytest
import trio

from zettelclaw.supervise import RateLimit, supervised


async def test_a_task_that_fails_after_starting_is_restarted(
        caplog: pytest.LogCaptureFixture, autojump_clock: trio.abc.Clock) -> None:
    runs: list[int] = []

    async def task(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        runs.append(len(runs))
        task_status.started()
        if len(runs) < 3:
            raise OSError(28, "No space left on device")  # e.g. the schedule's record, disk full

    async with trio.open_nursery() as nursery:
        await nursery.start(supervised, "the task", task)
    assert runs == [0, 1, 2]  # it failed twice, came back twice, then returned
    failures = [r for r in caplog.records if "the task failed" in r.getMessage()]
    assert [r.getMessage() for r in failures] == ["the task failed; it starts again in 1 s",
                                                  "the task failed; it starts again in 2 s"]
    assert all(r.exc_info for r in failures)


async def test_a_task_that_fails_before_starting_fails_the_start() -> None:
    async def task(*, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        raise ValueError("cannot bind")

    with pytest.RaisesGroup(pytest.RaisesExc(ValueError, match="cannot bind"),
                            flatten_subgroups=True):
        async with trio.open_nursery() as nursery:
            await nursery.start(supervised, "the task", task)


def test_rate_limit_shows_a_message_once_a_period_and_counts_the_rest() -> None:
    now = [0.0]
    limit = RateLimit(60, clock=lambda: now[0])

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("trio.serve_listeners", logging.ERROR, __file__, 1, msg, (),
                                 None)

    shown = []
    for t in range(0, 130, 1):  # ten a second in trio; one a second is enough to show it
        now[0] = float(t)
        r = record("accept returned %s (%s); retrying in %s seconds")
        if limit.filter(r):
            shown.append((t, r.msg))
    assert [t for t, _ in shown] == [0, 60, 120]
    assert shown[1][1].endswith("(59 more like it in the last 60 s)")
    assert limit.filter(record("another message"))
