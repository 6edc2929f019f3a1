"""``status``: one memory's files, log, entries, index and search, the server, and the
whole answer."""

from __future__ import annotations

from typing import Literal

from zettelclaw.protocol.results.agents import AgentRow
from zettelclaw.protocol.results.base import Result
from zettelclaw.protocol.results.briefing import BriefingStatus
from zettelclaw.protocol.results.jobs import ExtractionStatus, HostClient


class Paths(Result):
    log: str
    subjects: str
    state: str
    index: str


class LogStatus(Result):
    bytes: int
    lines: int
    unread_tail_bytes: int


class EntryCounts(Result):
    total: int
    by_type: dict[str, int]
    replaced: int
    current: int


class InvalidLine(Result):
    line: int
    reason: str
    excerpt: str


class InvalidLines(Result):
    count: int
    first: list[InvalidLine]


class IndexStatus(Result):
    bytes: int
    indexing: bool
    progress: list[int] | None


class EmbeddingHost(Result):
    """A connected host that offers ``embeddings.embed`` (``host.offer``), and what embeds."""

    client: HostClient
    provider: str
    model: str


class SemanticStatus(Result):
    on: bool
    reason: str | None
    embeddings: Literal["local", "http", "host"]  # search.embeddings: where vectors come from
    hosts: list[EmbeddingHost]  # the connected hosts that offer embeddings.embed
    model: str | None = None
    covered_through_line: int | None = None
    lines: int | None = None
    state: Literal["loading", "catching up", "ready", "off"]


class SearchStatus(Result):
    memory_files: int
    chunks: int
    semantic: SemanticStatus
    candidate_window: int


class ServerStatus(Result):
    """``status``'s ``server``: the sidecar's socket, or (the CLI without a sidecar) the mode
    and the socket it tried."""

    socket: str | None = None
    version: str | None = None
    uptime_seconds: float | None = None
    max_message_bytes: int | None = None
    mode: str | None = None
    tried_socket: str | None = None
    # a sentence when the sidecar before this one died without stopping (serve.serve_lock)
    previous_exit: str | None = None


class MemoryStatus(Result):
    """One memory's part of ``status`` (also ``zettelclaw status`` without a sidecar)."""

    version: str
    pid: int
    uptime_seconds: float
    home: str
    workspace: str
    paths: Paths
    log: LogStatus
    entries: EntryCounts
    invalid_lines: InvalidLines
    subjects: int
    search: SearchStatus
    index: IndexStatus


class WorkspaceConflict(Result):
    agents: list[str]
    workspaces: list[str]
    relation: Literal["same", "inside", "contains"]
    configured: bool


class Status(MemoryStatus):
    agent: str
    memory: str
    extraction: ExtractionStatus
    briefing: BriefingStatus
    agents: list[AgentRow]
    agents_total: int
    workspace_conflicts: list[WorkspaceConflict]
    server: ServerStatus
