"""agents/pool.py: memories opened on first use, closed when idle, reopened when the host moves
a workspace; sharing; and, when serving, each open memory's background work started and
stopped with it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from tests.direct import open_pool
from tests.timing import scaled
from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.pool import WORK_AT_ONCE
from zettelclaw.app import App
from zettelclaw.config import load_config
from zettelclaw.errors import UnknownAgentError
from zettelclaw.extraction.intake import HookCall
from zettelclaw.home import Home
from zettelclaw.index.database import SCHEMA_VERSION
from zettelclaw.llm.completion import Completion

LATER = 10_000_000.0  # "now" for close_idle: far past any idle time


async def test_memories_open_on_first_use_only(home: Home, workspace: Path) -> None:
    pool = open_pool(home, workspace)
    assert pool.open_memories() == []
    with pytest.raises(UnknownAgentError):
        async with pool.lease("work"):
            pass
    assert not (home.root / "agents").exists(), "a read of an unknown agent creates nothing"
    async with pool.lease("work", create=True) as app:
        assert app.memory == "work"
        assert app.home.root == home.root / "agents" / "work"
    async with pool.lease("work") as again:
        assert again is app
    assert pool.open_memories() == ["work"]
    assert pool.opened == 1
    pool.close_all()


async def test_calls_counts_the_leases_of_every_memory(home: Home, workspace: Path) -> None:
    pool = open_pool(home, workspace)
    assert pool.calls() == 0
    async with pool.lease(MAIN):
        assert pool.calls() == 1
        async with pool.lease(MAIN), pool.lease("work", create=True):
            assert pool.calls() == 3
        assert pool.calls() == 1
    assert pool.calls() == 0
    pool.close_all()


async def test_idle_memories_close_but_not_main_nor_one_in_use_or_with_work(
        home: Home, workspace: Path) -> None:
    pool = open_pool(home, workspace)
    async with pool.lease(MAIN), pool.lease("work", create=True):
        pass
    async with pool.lease("busy", create=True) as busy:
        busy.extraction.intake.accept(HookCall(
            trigger="sessionEnd", session_id="s1", session_key="agent:busy:main",
            agent_id="busy", messages=[{"role": "user", "content": "hello"}]))
    async with pool.lease("held", create=True):
        assert await pool.close_idle(now=time.monotonic() + LATER) == 1  # work only
    assert pool.open_memories() == ["busy", "held", MAIN]
    assert await pool.close_idle(now=time.monotonic()) == 0, "not idle yet"
    assert await pool.close_idle(now=time.monotonic() + LATER) == 1  # held, now released
    assert pool.open_memories() == ["busy", MAIN]
    async with pool.lease("work") as reopened:  # closed is not forgotten: its files are there
        assert reopened.memory == "work"
    pool.close_all()


async def test_a_moved_workspace_reopens_the_memory_once_no_call_uses_it(
        home: Home, workspace: Path, tmp_path: Path) -> None:
    pool = open_pool(home, workspace)
    first, second = tmp_path / "ws-a", tmp_path / "ws-b"
    pool.roster.register({"work": first})
    async with pool.lease("work") as old:
        assert old.workspace == first
        pool.roster.register({"work": second})
        async with pool.lease("work") as during:
            assert during is old, "a call in flight is not held up; it goes on with the old one"
    async with pool.lease("work") as new:
        assert new is not old
        assert new.workspace == second
    assert pool.closed == 1
    pool.close_all()


async def test_a_shared_agent_uses_the_named_memory_and_gets_no_directory(
        home: Home, workspace: Path) -> None:
    settings = load_config(home, env={}, overrides=["agents.share=phone:main"])
    pool = open_pool(home, workspace, settings=settings)
    async with pool.lease("phone") as phone, pool.lease(MAIN) as main:
        assert phone is main
    assert not (home.root / "agents" / "phone").exists()
    pool.close_all()


async def test_serving_starts_and_stops_each_memorys_background_work(
        home: Home, workspace: Path) -> None:
    pool = open_pool(home, workspace, serving=True)
    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        assert pool.open_memories() == [MAIN], "main opens at start"
        async with pool.lease("work", create=True) as work:
            assert work.worker is not None
        slot = pool._slots["work"]
        assert not slot.stopped.is_set()
        assert await pool.close_idle(now=time.monotonic() + LATER) == 1
        assert slot.stopped.is_set(), "its extraction loop and tail mender were cancelled"
        nursery.cancel_scope.cancel()
    assert pool.open_memories() == []


def _give_work(app: App, agent: str) -> None:
    app.extraction.intake.accept(HookCall(
        trigger="sessionEnd", session_id=f"s-{agent}", session_key=f"agent:{agent}:main",
        agent_id=agent, messages=[{"role": "user", "content": "hello"}]))


async def test_open_memories_are_bounded_closing_the_least_recently_used(
        home: Home, workspace: Path) -> None:
    """Every open memory costs threads and memory, and nothing bounded them."""
    settings = load_config(home, env={}, overrides=["agents.maxOpen=3"])
    pool = open_pool(home, workspace, settings=settings)
    async with pool.lease(MAIN):
        pass
    async with pool.lease("a", create=True) as a:
        _give_work(a, "a")  # waiting jobs do not keep a memory open past the bound
    async with pool.lease("b", create=True):
        pass
    async with pool.lease("c", create=True):
        pass
    assert pool.open_memories() == ["b", "c", MAIN], "a, used least recently, was closed"
    async with pool.lease("b"):
        pass
    async with pool.lease("d", create=True):
        pass
    assert pool.open_memories() == ["b", "d", MAIN], "c closed, not b (used since)"
    async with pool.lease("e", create=True), pool.lease("f", create=True), \
            pool.lease("g", create=True):
        assert pool.open_memories() == ["e", "f", "g", MAIN], \
            "a memory a call holds is never closed: the bound is exceeded for now"
    async with pool.lease("a") as again:
        assert len(again.extraction.spool.jobs()) == 1, "its job is still there"
    assert len(pool.open_memories()) == 3
    pool.close_all()


async def test_a_restart_opens_main_only_and_runs_waiting_jobs_a_few_memories_at_a_time(
        home: Home, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A restart with 20 agents with waiting jobs opened all 20 at once (3.2 GB)."""
    first = open_pool(home, workspace)
    busy = [f"busy{i}" for i in range(5)]
    for agent in busy:
        async with first.lease(agent, create=True) as app:
            _give_work(app, agent)
    first.close_all()
    settings = load_config(home, env={}, overrides=["agents.maxOpen=3"])
    pool = open_pool(home, workspace, settings=settings, serving=True)
    most_open = 0
    build = pool._build

    def counted_build(memory: str) -> App:
        nonlocal most_open
        most_open = max(most_open, len(pool.open_memories()) + 1)
        return build(memory)

    async def fake_complete(prompt: str, *, purpose: str, anthropic_model: str | None = None,
                            counted_as: str | None = None, max_tokens: int | None = None
                            ) -> Completion:
        return Completion(text='{"type": "handoff", "content": "nothing worth keeping"}',
                          route="host", model="fake")

    def jobs_left() -> int:
        return sum(len(list((home.root / "agents" / agent / "spool").glob("*.json")))
                   for agent in busy)

    all_done = trio.Event()
    close = pool._close

    async def close_and_check(slot: Any) -> None:  # a memory opened for its jobs closes: done?
        await close(slot)
        if not jobs_left() and not pool.waiting():
            all_done.set()

    monkeypatch.setattr(pool, "_build", counted_build)
    monkeypatch.setattr(pool, "_close", close_and_check)
    monkeypatch.setattr(pool.router, "complete", fake_complete)

    async with trio.open_nursery() as nursery:
        await nursery.start(pool.run)
        assert MAIN in pool.open_memories()
        assert len(pool.open_memories()) <= 1 + WORK_AT_ONCE, "a start opens main only"
        with trio.fail_after(scaled(60)):
            await all_done.wait()
        nursery.cancel_scope.cancel()
    assert most_open <= 1 + WORK_AT_ONCE, "a few memories at a time"
    for agent in busy:
        log = (home.root / "agents" / agent / "log.jsonl").read_text()
        assert log.count("\n") >= 1, f"{agent}'s job ran: its entries are in its log"


async def test_shutdown_waits_for_a_call_still_using_a_memory(
        home: Home, workspace: Path) -> None:
    """A briefing catching up in a thread when the sidecar stops: its index is not closed
    under it."""
    pool = open_pool(home, workspace, serving=True)
    holding, release = trio.Event(), trio.Event()
    leases_at_close: list[int] = []
    used: list[object] = []

    async def briefing_like() -> None:
        async with pool.lease(MAIN) as app:
            holding.set()
            with trio.CancelScope(shield=True):  # a thread's work: cancelling does not stop it
                await release.wait()
                used.append(await trio.to_thread.run_sync(
                    lambda: app.index.meta(app.index.conn)["schema_version"]))

    async def release_once_shutdown_waits() -> None:
        await slot.stopped.wait()  # the pool's close got past the memory's background work
        await trio.testing.wait_all_tasks_blocked()  # and waits for the lease (or closes)
        release.set()

    async with trio.open_nursery() as outer:
        outer.start_soon(briefing_like)
        async with trio.open_nursery() as nursery:
            await nursery.start(pool.run)
            await holding.wait()
            slot = pool._slots[MAIN]
            close = slot.app.close

            def recorded_close() -> None:
                leases_at_close.append(slot.leases)
                close()

            slot.app.close = recorded_close  # type: ignore[method-assign]
            nursery.cancel_scope.cancel()  # shutdown: the pool closes its memories
            outer.start_soon(release_once_shutdown_waits)
    assert leases_at_close == [0], "closed only once nobody used it"
    assert used == [SCHEMA_VERSION], "the call finished on an open index"
