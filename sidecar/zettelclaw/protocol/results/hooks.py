"""The answers of ``hook.*`` but the prompt's: a conversation taken in, the facts of a
turn noted, the gateway's sweep."""

from __future__ import annotations

from zettelclaw.protocol.results.base import Result


class Intake(Result):
    """``hook.sessionEnd`` and ``hook.beforeReset``: a new job, or why there is none."""

    accepted: bool
    job_id: str | None = None
    skipped: str | None = None
    messages: int | None = None


class FactsNoted(Result):
    """``hook.turnFacts``: the facts are noted for the session's next calls."""

    noted: bool


class After(Result):
    key: str | None
    timestamp: str | None


class SweepSession(Result):
    session_id: str
    after: After | None
    # the agent whose memory asks for it: the host sends it to that one (a session the host
    # lists under two agents is asked for by each memory on its own)
    agent_id: str | None = None


class SweepSkip(Result):
    session_id: str
    reason: str


class SweepError(Result):
    agent_id: str
    message: str


class Sweep(Result):
    """``hook.gatewayStart``, over every agent's memory."""

    sessions: list[SweepSession]
    skipped: list[SweepSkip]
    retried: list[str]
    errors: list[SweepError] = []
