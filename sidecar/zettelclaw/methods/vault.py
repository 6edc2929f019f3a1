"""``vault.*``: the Markdown view of a memory (``vault/``): build it, and take the person's
edits of it back into the log as corrections."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InvalidParamsError
from zettelclaw.forget import service as forget_service
from zettelclaw.methods.edge import from_domain
from zettelclaw.methods.forget import rebrief
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import VaultBuildParams, VaultSyncParams
from zettelclaw.protocol.results import SkippedPage, VaultBuilt, VaultSynced
from zettelclaw.vault.build import Report, build
from zettelclaw.vault.sync import sync


def vault_built(report: Report) -> VaultBuilt:
    return VaultBuilt(vault=report.vault, entries=report.entries, lines_added=report.lines_added,
                      pages_created=len(report.pages_created),
                      pages_updated=len(report.pages_updated),
                      skipped_pages=[SkippedPage(page=s.page, reason=s.reason)
                                     for s in report.skipped_pages],
                      moved_aside=report.moved_aside, seconds=round(report.seconds, 3))


def vault_path(value: str | None) -> Path | None:
    if value is not None and not Path(value).is_absolute():
        raise InvalidParamsError("path: must be absolute (the sidecar's working directory is "
                                 "not the caller's)")
    return None if value is None else Path(value)


async def vault_build(agents: Agents, params: VaultBuildParams) -> VaultBuilt:
    async with agents.lease(params.agent()) as app:
        report = await trio.to_thread.run_sync(
            lambda: build(app, vault_path(params.path), from_scratch=params.from_scratch,
                          force=params.force))
        return vault_built(report)


async def vault_sync(agents: Agents, params: VaultSyncParams) -> VaultSynced:
    async with agents.lease(params.agent()) as app:
        result = await trio.to_thread.run_sync(
            lambda: sync(app, vault_path(params.path), hide=forget_service.hide_for_vault))
        synced = from_domain(VaultSynced, result)
        if result.hid():  # as memory.forget does after a hide
            synced = synced.model_copy(update={"briefing": await rebrief(app)})
        return synced


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "vault.build": Method(VaultBuildParams, partial(vault_build, agents)),
        "vault.sync": Method(VaultSyncParams, partial(vault_sync, agents)),
    }
