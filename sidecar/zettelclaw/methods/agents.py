"""``agents.*``: the agents the sidecar knows, and where the host keeps their workspaces.

``agents.register`` is how the plugin tells the sidecar each agent's workspace (resolved by
OpenClaw, at gateway start and on every reconnect); a hook's ``workspaceDir`` does the same for
its own agent, so a workspace moved in OpenClaw's config is followed at that agent's next turn.
"""

from __future__ import annotations

import logging
from functools import partial

import trio

from zettelclaw.agents import roster
from zettelclaw.agents.pool import Agents
from zettelclaw.agents.roster import check_workspace, memory_home
from zettelclaw.errors import InvalidParamsError
from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import AgentsListParams, AgentsRegisterParams
from zettelclaw.protocol.results import AgentRow, AgentsList, AgentsRegistered, Refusal

logger = logging.getLogger(__name__)

# agents listed in an answer that is not the listing itself (status, agents.register), since
# all of them made status megabytes long; agents.list lists them all
LISTED_AGENTS = 50


async def register(agents: Agents, params: AgentsRegisterParams) -> AgentsRegistered:
    found = {a.agent_id: check_workspace(a.workspace) for a in params.agents}
    refused: list[roster.Refusal] = []
    changed = await trio.to_thread.run_sync(agents.roster.register, found, refused)

    def rows() -> list[AgentRow]:  # the agents named first, as many as status lists
        return agent_rows(agents, limit=LISTED_AGENTS, first=tuple(found))

    listed = await trio.to_thread.run_sync(rows)
    total = len(agents.roster.agents())
    if refused:  # another memory's workspace, or nested with one: not recorded
        return AgentsRegistered(changed=changed,
                                refused=[from_domain(Refusal, r) for r in refused],
                                agents=listed, agents_total=total)
    return AgentsRegistered(changed=changed, agents=listed, agents_total=total)


async def listing(agents: Agents, _: AgentsListParams) -> AgentsList:
    return AgentsList(agents=await trio.to_thread.run_sync(agent_rows, agents))


def methods(agents: Agents) -> dict[str, Method]:
    return {
        "agents.register": Method(AgentsRegisterParams, partial(register, agents)),
        "agents.list": Method(AgentsListParams, partial(listing, agents)),
    }


async def register_workspace(agents: Agents, agent: str, workspace_dir: str | None) -> None:
    """A hook's ``workspaceDir``: record it when it is new (one dict lookup when it is not).
    One that is not an absolute path is left out (logged): the hook itself still answers."""
    if workspace_dir is None:
        return
    try:
        path = check_workspace(workspace_dir)
    except InvalidParamsError:
        logger.warning("agent %s: workspaceDir %r is not an absolute path; not recorded",
                       agent, workspace_dir[:200])
        return
    if agents.roster.registered.get(agent) != path:
        await trio.to_thread.run_sync(agents.roster.register, {agent: path})


def agent_rows(agents: Agents, *, limit: int | None = None,
               first: tuple[str, ...] = ()) -> list[AgentRow]:
    """Every known agent: its memory (its own, or the one it shares), whether that memory is
    open, its workspace, and its log's size and entries (from the index, as of its last sync).
    With ``limit``, that many at most: ``first`` and the open memories' agents, then by id."""
    listed = agents.roster.agents()
    if limit is not None and len(listed) > limit:
        open_now = set(agents.open_memories())
        ahead = [a for a in listed if a in first]
        ahead += [a for a in listed if a not in first and agents.roster.memory_of(a) in open_now]
        listed = list(dict.fromkeys([*ahead, *listed]))[:limit]
    rows = []
    for agent in listed:
        memory = agents.roster.memory_of(agent)
        home = memory_home(agents.root, memory)
        log = LogStat.of(home.log) if home.root.is_dir() else None
        workspace = agents.roster.workspace_of(memory)
        rows.append(AgentRow(
            agent_id=agent,
            memory=memory,
            open=agents.app_if_open(agent) is not None,
            home=str(home.root),
            workspace=None if workspace is None else str(workspace),
            log_bytes=log.size if log else 0,
            entries=agents.entry_count(memory),
        ))
    return rows
