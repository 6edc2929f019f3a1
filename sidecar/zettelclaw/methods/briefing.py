"""``briefing.generate``: one briefing run on demand (the scheduler runs the same code)."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.errors import InvalidParamsError
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import BriefingGenerateParams
from zettelclaw.protocol.results import Briefing


async def generate(agents: Agents, params: BriefingGenerateParams) -> Briefing:
    agent = params.agent()
    async with agents.lease(agent) as app:
        if params.workspace_dir is not None:
            await _not_anothers(agents, agent, params.workspace_dir)
        return from_domain(Briefing,
                           await app.briefing.generate(params.workspace_dir, params.dry_run))


def methods(agents: Agents) -> dict[str, Method]:
    return {"briefing.generate": Method(BriefingGenerateParams, partial(generate, agents))}


async def _not_anothers(agents: Agents, agent: str, workspace_dir: str) -> None:
    """-32602 for a ``workspaceDir`` that is (or nests with) another memory's agent's workspace:
    this memory's briefing would land in the MEMORY.md that agent loads every session. One
    that is not an absolute path is left to ``generate``, which says so."""
    if "\x00" in workspace_dir or not os.path.isabs(workspace_dir):
        return
    found = await trio.to_thread.run_sync(agents.roster.owner_of, agent, Path(workspace_dir))
    if found is None:
        return
    owner, how = found
    relation = {"same": "is", "inside": "lies inside", "contains": "contains"}[how]
    raise InvalidParamsError(
        f"Invalid params: workspaceDir {workspace_dir} {relation} the workspace of agent "
        f"{owner.agent} ({owner.workspace}), whose memory is another: agent {agent}'s briefing "
        "is not written there",
        [{"field": "workspaceDir", "message": f"{relation} agent {owner.agent}'s workspace",
          "type": "workspace_conflict", "owner": owner.agent,
          "ownerWorkspace": str(owner.workspace)}])
