"""``sync.init``, ``sync.run``, ``sync.status``: one memory's sync through git (replicate/)."""

from __future__ import annotations

from functools import partial

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.forget import service as forget_service
from zettelclaw.methods.forget import rebrief
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.sync_models import (
    SyncInitialized,
    SyncInitParams,
    SyncRan,
    SyncRunParams,
    SyncStatus,
    SyncStatusParams,
)
from zettelclaw.replicate import git_sync
from zettelclaw.replicate.status import status


async def sync_init(agents: Agents, params: SyncInitParams) -> SyncInitialized:
    async with agents.lease(params.agent()) as app:
        made = await trio.to_thread.run_sync(lambda: git_sync.init(
            app.home, params.remote, key=params.key, new_key=params.new_key))
    return SyncInitialized.model_validate(made)


def run_blocking(app: App) -> git_sync.SyncReport:
    """One sync of ``app``'s memory, its index caught up with what came in."""
    report = git_sync.sync(app.home, partial(forget_service.purge_ids, app))
    if report.pulled:
        app.freshness.sync()
    return report


async def sync_run(agents: Agents, params: SyncRunParams) -> SyncRan:
    async with agents.lease(params.agent()) as app:
        report = await trio.to_thread.run_sync(lambda: run_blocking(app))
        if report.pulled or report.purges_applied:
            await rebrief(app)
    return SyncRan(pulled=report.pulled, pushed=report.pushed,
                   purges_applied=report.purges_applied,
                   purges_published=report.purges_published, rewritten=report.rewritten,
                   tries=report.tries, seconds=report.seconds, remote_bytes=report.remote_bytes)


async def sync_status(agents: Agents, params: SyncStatusParams) -> SyncStatus:
    async with agents.lease(params.agent()) as app:
        found = await trio.to_thread.run_sync(lambda: status(app.home))
    return SyncStatus.model_validate(found)


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "sync.init": Method(SyncInitParams, partial(sync_init, agents)),
        "sync.run": Method(SyncRunParams, partial(sync_run, agents)),
        "sync.status": Method(SyncStatusParams, partial(sync_status, agents)),
    }
