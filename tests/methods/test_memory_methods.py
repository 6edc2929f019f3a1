"""methods/memory.py without a socket: where a read runs. Alone, a quick search and an entry's
``memory.get`` are answered on the event loop (``search_now``, ``entry_now``); beside other
calls (a batch), or when the read is not known to be quick, in a worker thread. The answers are
the same either way (tests/search/test_searcher.py); these tests pin the routing."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from tests.conftest import entry, held_by_another_thread
from tests.direct import open_pool
from tests.timing import scaled
from zettelclaw.agents.pool import Agents
from zettelclaw.errors import NotFoundError
from zettelclaw.home import Home
from zettelclaw.index import read_budget
from zettelclaw.methods import memory as memory_methods
from zettelclaw.protocol.dispatcher import Dispatcher
from zettelclaw.protocol.params import GetParams, SearchParams
from zettelclaw.search.searcher import Searcher


@pytest.fixture
def pool(home: Home, workspace: Path, write_log: Any) -> Iterator[Agents]:
    write_log(entry("fact", "the lemon tree is on the balcony"),
              entry("decision", "water the fig tree weekly", subject="garden"))
    agents = open_pool(home, workspace)
    yield agents
    agents.close_all()


class Spy:
    """Counts the thread's search and the loop's, calling through to the real ones."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.threaded = self.now = 0
        search, search_now = Searcher.search, Searcher.search_now

        def threaded(searcher: Searcher, request: Any) -> Any:
            self.threaded += 1
            return search(searcher, request)

        def now(searcher: Searcher, request: Any) -> Any:
            self.now += 1
            return search_now(searcher, request)

        monkeypatch.setattr(Searcher, "search", threaded)
        monkeypatch.setattr(Searcher, "search_now", now)


def _search(pool: Agents) -> Any:
    handler = memory_methods.methods(pool)["memory.search"].handler

    async def call(params: SearchParams) -> Any:  # the answer as sent
        return (await handler(params)).wire

    return call


def _get(pool: Agents) -> Any:
    return memory_methods.methods(pool)["memory.get"].handler


async def test_alone_a_quick_search_is_answered_on_the_loop(
        pool: Agents, monkeypatch: pytest.MonkeyPatch) -> None:
    await _search(pool)(SearchParams.model_validate({"query": "warm up"}))  # the files' walk
    spy = Spy(monkeypatch)
    answer = await _search(pool)(SearchParams.model_validate({"query": "lemon"}))
    assert [r["content"] for r in answer["results"]] == ["the lemon tree is on the balcony"]
    assert (spy.now, spy.threaded) == (1, 0)


async def test_the_searches_of_a_batch_run_in_threads(
        pool: Agents, monkeypatch: pytest.MonkeyPatch) -> None:
    await _search(pool)(SearchParams.model_validate({"query": "warm up"}))
    spy = Spy(monkeypatch)
    batch = [{"jsonrpc": "2.0", "id": n, "method": "memory.search",
              "params": {"query": word}} for n, word in enumerate(("lemon", "fig", "tree"))]
    answers = await Dispatcher(memory_methods.methods(pool)).dispatch_decoded(batch)
    assert answers is not None
    assert answers.count(b'"content"') == 4  # 1 + 1 + 2 results
    assert (spy.now, spy.threaded) == (0, 3)


async def test_a_search_the_loop_declines_goes_to_a_thread(
        pool: Agents, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("zettelclaw.search.searcher.NOW_POSTINGS", 0)
    await _search(pool)(SearchParams.model_validate({"query": "warm up"}))
    spy = Spy(monkeypatch)
    answer = await _search(pool)(SearchParams.model_validate({"query": "tree"}))
    assert len(answer["results"]) == 2
    assert (spy.now, spy.threaded) == (1, 1)


async def test_entry_now_reads_an_entry_on_the_loop(pool: Agents, write_log: Any) -> None:
    first = write_log(entry("fact", "the fig needs sun"))[0]
    fixed = write_log(entry("fact", "the fig needs full sun", replaces=first["id"]))[0]
    async with pool.lease("main") as app:
        await app.syncer.fresh()
        found = memory_methods.entry_now(app, first["id"])
        assert found is not None
        assert found.entry.content == "the fig needs sun"
        assert [e.id for e in found.replaced_by] == [fixed["id"]]
        with pytest.raises(NotFoundError):
            memory_methods.entry_now(app, "nosuchid0000")
        assert memory_methods.entry_now(app, "MEMORY.md") is None, "a file: a thread's read"
    answer = await _get(pool)(GetParams.model_validate({"path": fixed["id"]}))
    assert answer.entry.content == "the fig needs full sun"


async def test_entry_now_declines_a_busy_index_or_a_spent_budget(
        pool: Agents, write_log: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    one = write_log(entry("fact", "the fig needs sun"))[0]
    async with pool.lease("main") as app:
        await app.syncer.fresh()
        with held_by_another_thread(app.index):
            assert memory_methods.entry_now(app, one["id"]) is None
        monkeypatch.setattr(memory_methods, "NOW_SQLITE_SECONDS", -1.0)
        monkeypatch.setattr(read_budget, "STEPS", 1)
        assert memory_methods.entry_now(app, one["id"]) is None
    answer = await _get(pool)(GetParams.model_validate({"path": one["id"]}))
    assert answer.entry.content == "the fig needs sun", "the thread's read answers"


async def test_at_most_a_core_each_of_a_batch_s_searches_run_at_once(
        pool: Agents, monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches past SEARCH_THREADS wait in trio, not at the GIL (bench/load.py: the quick
    calls' latency under load). Each search holds its thread until the test lets it go, which
    is once two run and the other four wait at the limiter (nothing can start then), or once a
    third runs beside them: with the limit gone, the peak is above 2."""
    monkeypatch.setattr(memory_methods, "SEARCH_THREADS", 2)
    await _search(pool)(SearchParams.model_validate({"query": "warm up"}))
    search = Searcher.search
    go = threading.Event()
    counted = threading.Lock()
    active = peak = 0

    def held(searcher: Searcher, request: Any) -> Any:
        nonlocal active, peak
        with counted:
            active += 1
            peak = max(peak, active)
        go.wait(10)
        with counted:
            active -= 1
        return search(searcher, request)

    monkeypatch.setattr(Searcher, "search", held)
    table = memory_methods.methods(pool)
    handler = table["memory.search"].handler
    assert isinstance(handler, functools.partial)
    (limiter,) = [arg for arg in handler.args if isinstance(arg, trio.CapacityLimiter)]
    batch = [{"jsonrpc": "2.0", "id": n, "method": "memory.search",
              "params": {"query": "tree"}} for n in range(6)]
    answers: list[bytes | None] = []

    async def dispatch() -> None:
        answers.append(await Dispatcher(table).dispatch_decoded(batch))

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(dispatch)
            with trio.fail_after(scaled(10)):  # the searches run in threads: polled
                while not (peak > 2 or (active == 2  # noqa: ASYNC110
                                        and limiter.statistics().tasks_waiting == 4)):
                    await trio.sleep(0.01)
            go.set()
    finally:
        go.set()
    (answer,) = answers
    assert answer is not None
    assert answer.count(b'"content"') == 12
    assert peak == 2
