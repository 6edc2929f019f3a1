"""Extraction as ``jobs.*`` and ``status`` show it: the jobs, the model route, admission,
transcripts, the token budget and the last jobs' outcomes."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.base import Result


class JobCounts(Result):
    pending: int
    waiting: int
    failed: int


class HostClient(Result):
    name: str
    version: str | None = None


class Host(Result):
    """A connected host that offers ``llm.complete`` (``host.offer``)."""

    client: HostClient
    model: str | None = None
    unusable: str | None = None  # its words, when its model said it cannot be asked now


class Route(Result):
    """The model route: the setting, the route the next job takes (None: none can be asked)
    and why, and the hosts that offer ``llm.complete``."""

    setting: Literal["auto", "anthropic", "host", "local"]
    active: Literal["anthropic", "host", "local"] | None
    reason: str
    anthropic_model: str
    host_model: str
    hosts: list[Host]
    local_url: str | None = None  # extraction.localUrl: an OpenAI-compatible server
    local_model: str | None = None
    speeds: dict[str, float] | None = None  # output tokens a second, by route, as measured
    # prompt tokens read a second, by route, where measured (what a call's timeout is sized by)
    reading_speeds: dict[str, float] | None = None


class Admission(Result):
    channels: list[str]
    senders: list[str]
    session_keys: list[str]
    agents: list[str]
    refused: int
    refused_sessions: int


class Transcripts(Result):
    files: int
    bytes: int
    oldest: str | None
    retention_days: int


class Budget(Result):
    """Model tokens against the budgets (``budget.*``, llm/usage.py): today's use (UTC) of
    background work (extraction, the briefing, imports' extraction), by purpose."""

    daily_tokens: int  # the day's limit; 0: none
    import_tokens: int  # an import's default limit; 0: none
    day: str
    used_today: int
    by_purpose: dict[str, int]
    calls: int
    spent: bool  # the day's budget is spent: model calls wait for the next day


class BeforeInstall(Result):
    """The memory's start (``since``) and the sessions the last gateway sweep left out as older
    than it, for ``zettelclaw import openclaw`` to take (docs/13-import.md)."""

    since: str | None
    sessions: int
    at: str | None
    hint: str | None


class ExtractionOutcome(Result):
    """What became of one job's model reply (kept after the job ends): JSON objects read,
    entries written, what was dropped and why, whether the reply stopped at its token limit
    (``cut``, after ``continued`` calls to go on; ``looping``: it was repeating itself),
    whether every object read was held already or repeated (``nothingNew``: the job is done,
    no entry written), or why no entry could be read from it (``failed``); ``note`` says it
    in one sentence. ``setAside``: on the local route, the facts of a message read alone that
    were not about its speaker, named nothing the message names, or reported the talk itself
    (not counted in ``dropped``)."""

    at: str | None
    job_id: str | None
    session_id: str | None
    route: str | None
    lines: int
    objects: int
    entries: int
    appended: int
    dropped: int
    duplicates: int
    held: int
    reasons: list[str]
    cut: bool
    continued: int
    looping: bool
    nothing_new: bool
    set_aside: int
    failed: str | None
    note: str


class ExtractionStatus(Result):
    """``status``'s ``extraction``, also in ``jobs.list``."""

    model: str
    api_key: bool
    base_url: str | None
    jobs: JobCounts
    waiting_for: str | None
    concurrency: int
    route: Route
    admission: Admission
    transcripts: Transcripts
    budget: Budget
    before_install: BeforeInstall
    recent: list[ExtractionOutcome]  # the last jobs' outcomes, newest last


class JobSummary(Result):
    job_id: str
    session_id: str
    state: Literal["pending", "waiting", "failed"]
    trigger: str
    created_at: str
    messages: int
    attempts: int
    last_error: str | None
    has_result: bool
    route: str | None
    not_before: float | None
    import_id: str | None  # an import's job (zettelclaw import): its id


class JobsList(Result):
    jobs: list[JobSummary]
    extraction: ExtractionStatus


class Retried(Result):
    retried: list[str]
