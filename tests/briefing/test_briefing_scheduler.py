"""briefing/scheduler.py: the run at start and the runs on cron.schedule, with a fake clock.

The wall clock is a number the fake ``sleep`` moves forward (no real waiting, no timing
assertion); the tests poll for what the scheduler recorded, under trio.fail_after.

Covers: a run at start when there was never one, or the last is older than a day, and none when
it is recent; the scheduled run at 03:00 America/Detroit, then the next one recorded; naps of at
most a minute; a machine that slept past the time runs once when it wakes; a failed run is
recorded and the schedule goes on; ``off`` schedules nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import trio
import trio.lowlevel

from tests.briefing import briefing_data as data
from tests.briefing.briefing_data import NOW
from tests.direct import open_app
from tests.timing import scaled
from zettelclaw import lock
from zettelclaw.app import App
from zettelclaw.briefing import record
from zettelclaw.briefing.scheduler import MAX_NAP, Scheduler
from zettelclaw.briefing.service import Briefing
from zettelclaw.config import load_config
from zettelclaw.home import Home
from zettelclaw.state import BriefingRecord, LastResult
from zettelclaw.workspace.markers import BEGIN

HOUR = 3600.0
FIRST_3AM = NOW + 24 * HOUR  # NOW is 03:00 in Detroit: the next run is a day later


def last_result(home: Home) -> LastResult:
    found = record.load(home).last_result
    assert found is not None, "a run was recorded"
    return found


class Clock:
    """A wall clock moved only by ``sleep``; it stops (sleeps forever) at ``stop_at``."""

    def __init__(self, now: float, stop_at: float, jump: float = 0.0) -> None:
        self.now, self.stop_at, self.jump = now, stop_at, jump
        self.naps: list[float] = []
        self.held: trio.Event | None = None  # while set and not yet fired, time stands still

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if self.now >= self.stop_at:
            await trio.sleep_forever()
        if self.held is not None:
            await self.held.wait()
        self.naps.append(seconds)
        self.now += seconds + self.jump  # a jump: the machine slept through it
        self.jump = 0.0
        await trio.lowlevel.checkpoint()


@pytest.fixture
def make(home: Home, workspace: Path, write_log: Callable[..., Any]
         ) -> Iterator[Callable[..., tuple[Scheduler, Clock]]]:
    apps: list[App] = []
    data.write(home, write_log)

    def build(*extra: str, stop_at: float = FIRST_3AM, jump: float = 0.0,
              last_run: float | None = None) -> tuple[Scheduler, Clock]:
        clock = Clock(NOW, stop_at, jump)
        config = load_config(home, env={}, overrides=[f"cron.timezone={data.ZONE}", *extra])
        apps.append(app := open_app(home, workspace, settings=config))
        briefing = Briefing(home, workspace, config, app.syncer, app.router, clock=clock.time)
        if last_run is not None:
            with lock.exclusive(home.lock):
                record.ran_locked(home, briefing.stamp(last_run), LastResult(ok=True))
        return Scheduler(briefing, sleep=clock.sleep), clock

    yield build
    for app in apps:
        app.close()


async def until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(scaled(20)):
        while not condition():  # noqa: ASYNC110 (state.json is written from threads)
            await trio.sleep(0.01)


async def test_a_first_start_runs_then_the_schedule_takes_over(
        make: Callable[..., tuple[Scheduler, Clock]], home: Home, workspace: Path) -> None:
    scheduler, clock = make()
    clock.held = trio.Event()  # the scheduled run waits until the start's run is checked (it
    # used to race the polling below: a fast fake clock ran both before the first check)
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
        await until(lambda: scheduler.runs == 1)
        assert last_result(home).trigger == "start"
        assert record.load(home).last_run == "2026-02-21T03:00:00-05:00"
        assert (workspace / "MEMORY.md").read_text().startswith(BEGIN)
        clock.held.set()
        await until(lambda: scheduler.runs == 2
                    and record.load(home).next_run == "2026-02-23T03:00:00-05:00")
        nursery.cancel_scope.cancel()
    saved = record.load(home)
    assert saved.last_run == "2026-02-22T03:00:00-05:00"
    assert last_result(home).trigger == "schedule"
    assert max(clock.naps) <= MAX_NAP
    assert sum(clock.naps) == FIRST_3AM - NOW


async def test_a_recent_run_means_no_run_at_start(
        make: Callable[..., tuple[Scheduler, Clock]], home: Home) -> None:
    scheduler, _ = make(last_run=NOW - 2 * HOUR)
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
        await until(lambda: scheduler.runs == 1)
        nursery.cancel_scope.cancel()
    saved = record.load(home)
    assert last_result(home).trigger == "schedule"
    assert saved.last_run == "2026-02-22T03:00:00-05:00"


async def test_a_run_older_than_a_day_runs_at_start(
        make: Callable[..., tuple[Scheduler, Clock]], home: Home) -> None:
    scheduler, _ = make(last_run=NOW - 25 * HOUR, stop_at=NOW)
    briefing = scheduler.briefing
    assert isinstance(briefing, Briefing)
    assert scheduler.due_at_start(briefing.stamp(NOW - 25 * HOUR))
    assert not scheduler.due_at_start(briefing.stamp(NOW - 23 * HOUR))
    assert scheduler.due_at_start(None)
    assert scheduler.due_at_start("not a time")
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
        await until(lambda: scheduler.runs == 1)
        nursery.cancel_scope.cancel()
    assert last_result(home).trigger == "start"


async def test_a_machine_that_slept_through_the_time_runs_once_on_waking(
        make: Callable[..., tuple[Scheduler, Clock]], home: Home) -> None:
    # the first nap lasts 30 hours: 03:00 on 02-22 is missed; it runs as soon as that is seen
    scheduler, _ = make(last_run=NOW - HOUR, jump=30 * HOUR)
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
        await until(lambda: scheduler.runs == 1)
        await until(lambda: record.load(home).next_run == "2026-02-23T03:00:00-05:00")
        nursery.cancel_scope.cancel()
    assert record.load(home).last_run == "2026-02-22T09:01:00-05:00"


async def test_a_failed_run_is_recorded_and_the_schedule_goes_on(
        make: Callable[..., tuple[Scheduler, Clock]], home: Home, workspace: Path) -> None:
    (workspace / "MEMORY.md").write_text(f"{BEGIN}\nno end marker\n")
    scheduler, _ = make()
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
        await until(lambda: scheduler.runs == 2)
        nursery.cancel_scope.cancel()
    assert last_result(home).ok is False
    assert last_result(home).trigger == "schedule"
    assert (workspace / "MEMORY.md").read_text() == f"{BEGIN}\nno end marker\n"


async def test_off_schedules_nothing(make: Callable[..., tuple[Scheduler, Clock]], home: Home,
                                     workspace: Path) -> None:
    scheduler, clock = make("cron.schedule=off")
    async with trio.open_nursery() as nursery:
        await nursery.start(scheduler.run)
    assert scheduler.runs == 0
    assert clock.naps == []
    assert record.load(home) == BriefingRecord()
    written = orjson.loads(home.state.read_bytes())
    written.pop("since")  # the memory's start, recorded when it was opened (app.py)
    assert written == {"version": 1}  # nothing of the briefing
    assert not (workspace / "MEMORY.md").exists()
