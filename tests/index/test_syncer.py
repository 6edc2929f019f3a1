"""index/syncer.py: the first catch-up after start, and what waits for it.

Covers: ``first_catch_up`` is set when the catch-up after start has ended, whether it indexed
the log or failed; the extraction worker imports the Anthropic SDK only after it (a cold build
keeps the CPU and the GIL), and at once when nothing holds it back; and not at all when no call
can go to the Anthropic API (no key, or the host's model alone).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from tests.conftest import entry
from tests.direct import open_app
from zettelclaw.app import App
from zettelclaw.config import load_config
from zettelclaw.extraction import worker as worker_module
from zettelclaw.home import Home


@pytest.fixture
def app(home: Home, workspace: Path) -> Iterator[App]:
    """One memory as the sidecar builds it (serving: the syncer's background, the worker), with
    an Anthropic API key (no call is made)."""
    settings = load_config(home, env={"ANTHROPIC_API_KEY": "sk-test"})
    made = open_app(home, workspace, settings=settings, serving=True)
    yield made
    made.close()


@pytest.fixture
def imported(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when the worker preloads the SDK (in a worker thread: a thread's event)."""
    event = threading.Event()
    monkeypatch.setattr(worker_module, "preload", event.set)
    return event


async def _wait_for(event: threading.Event) -> None:
    assert await trio.to_thread.run_sync(event.wait, 10.0), "not imported in 10 s"


async def test_the_first_catch_up_is_announced_when_it_is_done(
        app: App, write_log: Callable[..., Any]) -> None:
    write_log(entry(), entry())
    assert not app.syncer.first_catch_up.is_set()
    await app.syncer.background()
    assert app.syncer.first_catch_up.is_set()
    assert not app.freshness.needs_sync(), "the log was indexed before"


async def test_the_first_catch_up_is_announced_when_it_failed(
        app: App, write_log: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    write_log(entry())

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the index is broken")

    monkeypatch.setattr(app.freshness, "sync", broken)
    await app.syncer.background()
    assert app.syncer.first_catch_up.is_set()
    assert "indexing the log failed" in caplog.text


async def test_the_sdk_is_imported_after_the_first_catch_up(
        app: App, imported: threading.Event) -> None:
    assert app.worker is not None
    async with trio.open_nursery() as nursery:
        await nursery.start(app.worker.run)
        await trio.testing.wait_all_tasks_blocked()
        assert not imported.is_set(), "held back while the index is built"
        app.syncer.first_catch_up.set()
        await _wait_for(imported)
        nursery.cancel_scope.cancel()


async def test_a_worker_not_held_back_imports_at_once(
        app: App, imported: threading.Event) -> None:
    async with trio.open_nursery() as nursery:
        await nursery.start(worker_module.Worker(app.extraction).run)
        await _wait_for(imported)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("env", [{}, {"ANTHROPIC_API_KEY": "sk-test",
                                      "ZETTELCLAW_EXTRACTION_ROUTE": "host"}])
async def test_no_sdk_is_imported_when_no_call_can_go_to_the_anthropic_api(
        home: Home, workspace: Path, imported: threading.Event, env: dict[str, str]) -> None:
    """Its import holds the GIL for up to ~100 ms at a time: a stall of the event loop for
    nothing, when extraction uses the host's model."""
    made = open_app(home, workspace, settings=load_config(home, env=env), serving=True)
    try:
        assert made.worker is not None
        assert not made.extraction.router.may_use_anthropic()
        async with trio.open_nursery() as nursery:
            await nursery.start(worker_module.Worker(made.extraction).run)
            await trio.testing.wait_all_tasks_blocked()
            assert not await trio.to_thread.run_sync(imported.wait, 0.5)
            nursery.cancel_scope.cancel()
    finally:
        made.close()
