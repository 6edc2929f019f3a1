"""The params of extraction's calls: ``hook.*`` but the prompt's, and ``jobs.*``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    Field,
    StringConstraints,
    model_validator,
)

from zettelclaw.protocol.params.base import AgentParams, AudienceParams, Params, Text


class TurnFactsParams(AudienceParams):
    """``hook.turnFacts``: what the host knows of a session's turn, raw, for the calls of that
    session that come without it (``session_keys.TurnFacts``)."""

    session_key: Text = Field(alias="sessionKey")
    session_id: Text | None = Field(None, alias="sessionId")
    channel: Text | None = None


def _millis(value: float | str | None) -> float | None:
    """A host's time as epoch milliseconds: a number (ms, or s if small) or an ISO string."""
    if value is None or isinstance(value, float | int):
        return None if value is None else float(value) * (1000 if value < 1e11 else 1)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"not epoch milliseconds or ISO 8601: {value!r}") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp() * 1000


#: a host's time (``updatedAt``, ``readAt``), read as epoch milliseconds (a float) or None
EpochMillis = Annotated[float | str | None, AfterValidator(_millis)]


Reason = Annotated[str, StringConstraints(max_length=64)]


class HookTranscriptParams(AgentParams):
    """``hook.sessionEnd`` and ``hook.beforeReset``: a stretch of conversation to extract."""

    session_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        alias="sessionId")
    session_key: Text | None = Field(None, alias="sessionKey")
    reason: Reason | None = None
    messages: Annotated[list[Any], Field(max_length=100_000)] | None = None
    transcript_path: Text | None = Field(None, alias="transcriptPath")
    workspace_dir: Text | None = Field(None, alias="workspaceDir")
    # when the host read this transcript: the sweep leaves the session out until it is active
    # again (protocol.md, hook.gatewayStart)
    read_at: EpochMillis = Field(None, alias="readAt")
    # what the admission policy matches besides the key and the agent (extraction/admission.py)
    channel: Text | None = None
    sender_id: Text | None = Field(None, alias="senderId")

    def read_at_ms(self) -> float | None:
        return self.read_at if isinstance(self.read_at, float) else None


class GatewaySession(AgentParams):
    session_id: Annotated[str, StringConstraints(min_length=1, max_length=200)] = Field(
        alias="sessionId")
    session_key: Text | None = Field(None, alias="sessionKey")
    updated_at: EpochMillis = Field(None, alias="updatedAt")

    @model_validator(mode="after")
    def _agent_named(self) -> GatewaySession:
        return self  # one session naming no agent is skipped by name, not the whole sweep

    def updated_at_ms(self) -> float | None:
        return self.updated_at if isinstance(self.updated_at, float) else None


class GatewayStartParams(Params):
    sessions: Annotated[list[GatewaySession], Field(max_length=100_000)] = []


class JobsListParams(AgentParams):
    pass


class JobsRetryParams(AgentParams):
    job_id: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = Field(
        None, alias="jobId")
