"""index/syncer.py: the first catch-up after start, and what waits for it.

Covers: ``first_catch_up`` is set when the catch-up after start has ended, whether it indexed
the log or failed; the extraction worker imports the Anthropic SDK only after it (a cold build
keeps the CPU and the GIL), and at once when nothing holds it back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from tests.conftest import entry
from tests.direct import open_app
from zettelclaw.extraction import worker as worker_module
from zettelclaw.home import Home


async def _wait_for(event: threading.Event) -> None:
    assert await trio.to_thread.run_sync(event.wait, 10.0), "not imported in 10 s"


async def test_the_first_catch_up_is_announced_when_it_is_done(
        home: Home, workspace: Path, write_log: Callable[..., Any]) -> None:
    write_log(entry(), entry())
    app = open_app(home, workspace, serving=True)
    try:
        assert not app.syncer.first_catch_up.is_set()
        await app.syncer.background()
        assert app.syncer.first_catch_up.is_set()
        assert not app.freshness.needs_sync(), "the log was indexed before"
    finally:
        app.close()


async def test_the_first_catch_up_is_announced_when_it_failed(
        home: Home, workspace: Path, write_log: Callable[..., Any],
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    write_log(entry())
    app = open_app(home, workspace, serving=True)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the index is broken")

    monkeypatch.setattr(app.freshness, "sync", broken)
    try:
        await app.syncer.background()
        assert app.syncer.first_catch_up.is_set()
        assert "indexing the log failed" in caplog.text
    finally:
        app.close()


async def test_the_sdk_is_imported_after_the_first_catch_up(
        home: Home, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    imported = threading.Event()  # (preload runs in a worker thread)
    monkeypatch.setattr(worker_module, "preload", imported.set)
    app = open_app(home, workspace, serving=True)
    assert app.worker is not None
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(app.worker.run)
            await trio.testing.wait_all_tasks_blocked()
            assert not imported.is_set(), "held back while the index is built"
            app.syncer.first_catch_up.set()
            await _wait_for(imported)
            nursery.cancel_scope.cancel()
    finally:
        app.close()


async def test_a_worker_not_held_back_imports_at_once(
        home: Home, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    imported = threading.Event()  # (preload runs in a worker thread)
    monkeypatch.setattr(worker_module, "preload", imported.set)
    app = open_app(home, workspace, serving=True)
    try:
        worker = worker_module.Worker(app.extraction)
        async with trio.open_nursery() as nursery:
            await nursery.start(worker.run)
            await _wait_for(imported)
            nursery.cancel_scope.cancel()
    finally:
        app.close()
