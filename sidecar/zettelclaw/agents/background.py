"""A memory's background work while the sidecar serves: the index's catch-up and its watch,
the extraction loop, the vectorizer, the tail mender, the vault watcher, the team's sync (not
``main``'s) and the sync between machines, each restarted after a failure (supervise.py).

A Rust panic in one of them (a thread tantivy could not make) stops this memory's background
work only: the server and the other memories go on (panics.py).
"""

from __future__ import annotations

import logging
from functools import partial

import trio

from zettelclaw.agent_ids import MAIN
from zettelclaw.app import App
from zettelclaw.briefing.service import rewrite_block
from zettelclaw.config import Config
from zettelclaw.forget import service as forget_service
from zettelclaw.log.tail_mender import TailMender
from zettelclaw.panics import is_panic
from zettelclaw.replicate.background import BackgroundSync
from zettelclaw.replicate.team_task import TeamTask
from zettelclaw.supervise import supervised
from zettelclaw.vault.watch import VaultWatcher

logger = logging.getLogger(__name__)


async def serve_memory(app: App, settings: Config, *,
                       task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Run ``app``'s background work until cancelled; started once every part runs."""
    name = app.memory
    assert app.worker is not None
    assert app.vectorizer is not None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_stop_syncing_on_cancel, app)
            nursery.start_soon(app.syncer.background)
            nursery.start_soon(app.syncer.watch)
            await nursery.start(supervised, f"the extraction loop ({name})", app.worker.run)
            await nursery.start(supervised, f"the vectorizer ({name})", app.vectorizer.run)
            await nursery.start(supervised, f"the tail mender ({name})",
                                TailMender(app.home).run)
            await nursery.start(supervised, f"the vault watcher ({name})",
                                vault_watcher(app, settings.vault.watch_seconds).run)
            if name != MAIN:  # the owner's private memory never joins a team
                await nursery.start(supervised, f"the team sync ({name})",
                                    TeamTask(app.home, partial(
                                        forget_service.purge_ids, app)).run)
            await nursery.start(supervised, f"the sync ({name})",
                                background_sync(app, settings).run)
            task_status.started()
    except BaseException as exc:
        if not is_panic(exc):
            raise
        logger.error("agent %s: its background work stopped: a Rust panic: %s", name, exc,
                     exc_info=exc)


async def _stop_syncing_on_cancel(app: App) -> None:
    try:
        await trio.sleep_forever()
    finally:
        app.freshness.stop()  # a long catch-up in a worker thread stops after its current batch


def background_sync(app: App, settings: Config) -> BackgroundSync:
    """The sync of a memory set up with `zettelclaw sync init`, with forget's purge for what
    another machine purged, and the index and briefing caught up after what came in."""

    async def caught_up(_report: object) -> None:
        await trio.to_thread.run_sync(app.freshness.sync)
        await rewrite_block(app.workspace, app.briefing)

    return BackgroundSync(app.home, interval=settings.sync.interval_seconds,
                          after_write=settings.sync.after_write_seconds,
                          purge_local=partial(forget_service.purge_ids, app),
                          caught_up=caught_up, name=app.memory)


def vault_watcher(app: App, period: float) -> VaultWatcher:
    """The watcher of a memory's vault, with forget's hide for a struck line and the briefing's
    block written again after it."""
    return VaultWatcher(app, period, name=app.memory, hide=forget_service.hide_for_vault,
                        rebrief=partial(rewrite_block, app.workspace, app.briefing))
