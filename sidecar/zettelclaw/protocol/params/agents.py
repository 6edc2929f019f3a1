"""The params of the calls about agents and hosts: ``agents.*``, ``artifacts.list``,
``host.offer``, and the briefing's ``briefing.generate``."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from zettelclaw.agent_ids import check_agent_id
from zettelclaw.protocol.params.base import AgentParams, Params, Text


class BriefingGenerateParams(AgentParams):
    """``briefing.generate``: rewrite the generated block of the workspace's MEMORY.md."""

    workspace_dir: Annotated[str, StringConstraints(min_length=1, max_length=4096)] | None = (
        Field(None, alias="workspaceDir"))
    dry_run: bool = Field(False, alias="dryRun")


class AgentWorkspace(Params):
    agent_id: Text = Field(alias="agentId")
    workspace: Annotated[str, StringConstraints(min_length=1, max_length=4096)]

    @field_validator("agent_id")
    @classmethod
    def _id(cls, value: str) -> str:
        return check_agent_id(value)


class AgentsRegisterParams(Params):
    """``agents.register``: each agent's workspace, as the host resolves it."""

    agents: Annotated[list[AgentWorkspace], Field(max_length=1000)]


class AgentsListParams(Params):
    pass


class ArtifactsListParams(Params):
    """``artifacts.list``: the public artifacts of these agents' memories (absent: every agent
    the sidecar knows)."""

    agent_ids: Annotated[list[Text], Field(max_length=1000)] | None = Field(None, alias="agentIds")

    @field_validator("agent_ids")
    @classmethod
    def _ids(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [check_agent_id(agent) for agent in value]


class HostClientParams(Params):
    name: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    version: Annotated[str, StringConstraints(max_length=100)] | None = None


class HostEmbeddingsParams(Params):
    """The embedding provider and model a host's ``embeddings.embed`` uses: the sidecar keeps
    the vectors under ``host:<provider>/<model>`` (another one, new vectors)."""

    provider: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    model: Annotated[str, StringConstraints(min_length=1, max_length=200)]


class HostOfferParams(Params):
    """``host.offer``: what this connection's client can do for the sidecar (llm/host.py)."""

    capabilities: list[Annotated[str, StringConstraints(min_length=1, max_length=100)]] = Field(
        max_length=32)
    client: HostClientParams | None = None
    model: Text | None = None  # the model the host's completions use by default, for status
    embeddings: HostEmbeddingsParams | None = None  # with embeddings.embed: what embeds
    reason: Text | None = None  # why an offer is withdrawn (no capabilities), for status

    @model_validator(mode="after")
    def _embeddings_named(self) -> HostOfferParams:
        if "embeddings.embed" in self.capabilities and self.embeddings is None:
            raise ValueError("embeddings.embed needs embeddings: {provider, model}")
        return self
