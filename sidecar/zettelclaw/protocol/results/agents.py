"""The answers about agents and hosts: ``agents.*``, ``artifacts.list``, ``host.offer``."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result
from zettelclaw.protocol.results.jobs import Route


class AgentRow(Result):
    agent_id: str
    memory: str
    open: bool
    home: str
    workspace: str | None
    log_bytes: int
    entries: int | None


class AgentsList(Result):
    agents: list[AgentRow]


class Artifact(Result):
    """One public artifact: a file ``path`` inside ``root`` (both checked by the sidecar)."""

    kind: Literal["briefing", "vault-page", "log-export"]
    root: str
    path: str
    absolute_path: str
    content_type: Literal["markdown", "json"]
    memory: str
    agent_ids: list[str]  # the agents whose memory it is (several when agents.share names them)


class ArtifactsList(Result):
    published: bool  # artifacts.publish: off, nothing is listed
    reason: str | None = None  # why nothing is listed
    artifacts: list[Artifact]
    left_out: int  # links out of their root, vault pages past the bound


class Refusal(Result):
    """A workspace ``agents.register`` did not record, and why."""

    agent_id: str
    workspace: str
    reason: str
    owner: str | None = None
    owner_workspace: str | None = None
    relation: Literal["same", "inside", "contains"] | None = None


class AgentsRegistered(Result):
    changed: list[str]
    refused: list[Refusal] | None = None
    agents: list[AgentRow]
    agents_total: int


class Offered(Result):
    accepted: list[str]
    ignored: list[str]
    route: Route
