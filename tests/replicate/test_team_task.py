"""The sidecar's team task (replicate/team_task.py) against a real Postgres 15: a new entry
reaches another machine without a command (LISTEN/NOTIFY); with the server stopped, local work
goes on and the task says the database is unreachable; started again, the task reconnects and
everything arrives once. Slow: a server, and real time (the task's reconnect backoff)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.pg_server import PgServer
from tests.replicate.test_team_round import Machine
from zettelclaw.replicate import pg_schema, pg_store, team
from zettelclaw.replicate.team_task import TeamTask

pytestmark = pytest.mark.slow


@pytest.fixture
def pair(pg_team: tuple[PgServer, str], tmp_path: Path
         ) -> Iterator[tuple[PgServer, Machine, Machine]]:
    server, db = pg_team
    with pg_store.connect(server.dsn(db)) as conn:
        pg_store.init_schema(conn)
        for name in ("ann", "ben"):
            conn.execute(f'CREATE ROLE "{db}_{name}" LOGIN')
            pg_store.run_all(conn, pg_schema.add_member(f"{db}_{name}"))
    ann = Machine(tmp_path, "ann", server.dsn(db, f"{db}_ann"))
    ben = Machine(tmp_path, "ben", server.dsn(db, f"{db}_ben"))
    try:
        yield server, ann, ben
    finally:
        ann.app.close()
        ben.app.close()


async def until(tasks: list[TeamTask], condition: Callable[[], bool],
                seconds: float = 60.0) -> None:
    """Wait for ``condition``, looked at after each round or failure of any of ``tasks``."""
    with trio.fail_after(seconds):
        while True:
            events = [task.news for task in tasks]  # before the look: no news is missed
            if condition():
                return
            async with trio.open_nursery() as nursery:
                for event in events:
                    nursery.start_soon(_then_cancel, event, nursery.cancel_scope)


async def _then_cancel(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def test_an_entry_reaches_the_other_machine_and_an_outage_is_caught_up(
        pair: tuple[PgServer, Machine, Machine]) -> None:
    server, ann, ben = pair
    async with trio.open_nursery() as nursery:
        tasks = [TeamTask(m.home, m.purge_local) for m in (ann, ben)]
        for task in tasks:
            await nursery.start(task.run)
        [first] = ann.write("the deploy freeze starts Friday")
        await until(tasks, lambda: first in ben.ids())

        await trio.to_thread.run_sync(server.stop)
        try:
            await until(tasks, lambda: team.State.load(ann.home).reachable is False)
            during = ann.write("written while the database was down") + \
                ben.write("and this one on the other side")
            assert during[0] in ann.ids()  # local work goes on
            state = team.State.load(ann.home)
            assert state.last_error is not None
            assert state.error_since is not None
        finally:
            await trio.to_thread.run_sync(server.start)
        # (and ann's round done: its state is saved after its lines are in)
        await until(tasks, lambda: set(during) <= set(ann.ids()) and set(during) <= set(ben.ids())
                    and team.State.load(ann.home).last_error is None)
        nursery.cancel_scope.cancel()
    for m in (ann, ben):
        ids = m.ids()
        assert len(ids) == len(set(ids)) == 3


async def test_a_write_during_a_round_is_published_by_the_next(
        pair: tuple[PgServer, Machine, Machine], monkeypatch: pytest.MonkeyPatch) -> None:
    _, ann, ben = pair
    real = team.sync_once
    during: list[str] = []
    published: list[int] = []

    def round_with_a_write(home: Any, conn: Any, purge_local: Any) -> team.Round:
        done = real(home, conn, purge_local)
        if home == ann.home:
            published.append(done.pushed)
            # once, in a round after the first push that publishes nothing (no NOTIFY of its
            # own to wake the task again): after it published, before it ends
            if not during and done.pushed == 0 and any(published):
                during.extend(ann.write("written while a round ran"))
        return done

    monkeypatch.setattr(team, "sync_once", round_with_a_write)
    async with trio.open_nursery() as nursery:
        tasks = [TeamTask(m.home, m.purge_local) for m in (ann, ben)]
        for task in tasks:
            await nursery.start(task.run)
        ann.write("the first")
        await until(tasks, lambda: bool(during) and during[0] in ben.ids(), seconds=30)
        nursery.cancel_scope.cancel()
