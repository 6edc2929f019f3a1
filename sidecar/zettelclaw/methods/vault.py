"""``vault.*``: the Markdown view of a memory (``vault/``): build it, and take the person's
edits of it back into the log as corrections."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from pydantic import Field

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InvalidParamsError
from zettelclaw.methods.forget import rebrief
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import AgentParams, Text
from zettelclaw.vault.build import build
from zettelclaw.vault.sync import sync


class VaultBuildParams(AgentParams):
    path: Text | None = None  # the vault's folder (absolute); default the memory's vault/
    from_scratch: bool = Field(False, alias="fromScratch")
    force: bool = False  # with fromScratch: move a folder holding the person's pages aside


class VaultSyncParams(AgentParams):
    path: Text | None = None


def vault_path(value: str | None) -> Path | None:
    if value is not None and not Path(value).is_absolute():
        raise InvalidParamsError("path: must be absolute (the sidecar's working directory is "
                                 "not the caller's)")
    return None if value is None else Path(value)


def methods(agents: Agents) -> dict[str, Method]:
    async def vault_build(params: VaultBuildParams) -> dict[str, Any]:
        async with agents.lease(params.agent()) as app:
            report = await trio.to_thread.run_sync(
                lambda: build(app, vault_path(params.path), from_scratch=params.from_scratch,
                              force=params.force))
            return report.wire()

    async def vault_sync(params: VaultSyncParams) -> dict[str, Any]:
        async with agents.lease(params.agent()) as app:
            result = await trio.to_thread.run_sync(sync, app, vault_path(params.path))
            if any(r["action"] == "hide" and r.get("hidden") for r in result["receipts"]):
                result["briefing"] = await rebrief(app)  # as memory.forget does after a hide
            return result

    return {
        "vault.build": Method(VaultBuildParams, vault_build),
        "vault.sync": Method(VaultSyncParams, vault_sync),
    }
