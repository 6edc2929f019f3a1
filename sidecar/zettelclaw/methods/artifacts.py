"""``artifacts.list``: each memory's public artifacts (``artifacts/``): what a host's companion
plugin may read (OpenClaw's memory-wiki in bridge mode), when the owner publishes them
(``artifacts.publish``)."""

from __future__ import annotations

from functools import partial

import trio

from zettelclaw.agents.pool import Agents
from zettelclaw.agents.roster import memory_home
from zettelclaw.artifacts.listing import of_memory
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import ArtifactsListParams
from zettelclaw.protocol.results import Artifact, ArtifactsList

OFF = ("artifacts.publish is off: a companion plugin would copy the owner's memory where "
       "Zettelclaw's privacy rules do not reach (set artifacts.publish=true to publish)")


async def listing(agents: Agents, params: ArtifactsListParams) -> ArtifactsList:
    if not agents.settings.artifacts.publish:
        return ArtifactsList(published=False, reason=OFF, artifacts=[], left_out=0)
    named = params.agent_ids
    for agent in named or ():
        agents.check_known(agent)
    everyone = await trio.to_thread.run_sync(agents.roster.agents)
    memories: dict[str, list[str]] = {}  # memory -> the agents whose memory it is
    for agent in everyone:
        memories.setdefault(agents.roster.memory_of(agent), []).append(agent)
    wanted = sorted({agents.roster.memory_of(a) for a in named} if named is not None
                    else memories)
    found: list[Artifact] = []
    left_out = 0
    for memory in wanted:
        if not memory_home(agents.root, memory).root.is_dir():
            continue  # no memory yet: nothing of it to read (and listing does not make one)
        owners = sorted(memories.get(memory, [memory]))
        async with agents.lease(memory) as app:
            part = await trio.to_thread.run_sync(of_memory, app, owners)
        left_out += part.left_out
        found += [Artifact(kind=a.kind, root=str(a.root), path=a.path,
                           absolute_path=str(a.absolute), content_type=a.content_type,
                           memory=memory, agent_ids=owners) for a in part.artifacts]
    return ArtifactsList(published=True, artifacts=found, left_out=left_out)


def methods(agents: Agents) -> dict[str, Method]:
    return {"artifacts.list": Method(ArtifactsListParams, partial(listing, agents))}
