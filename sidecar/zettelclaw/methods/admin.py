"""``status`` and ``index.rebuild``: what the sidecar holds and how it is doing.

``status`` describes one agent's memory (``agentId``; none: ``main``) in full, and lists the
agents with their counts (``agents``: at most ``LISTED_AGENTS``, the one asked about, ``main`` and
the open memories' first; ``agentsTotal`` counts them all; ``agents.list`` lists them all)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import trio

from zettelclaw import __version__
from zettelclaw.agent_ids import MAIN
from zettelclaw.agents.pool import Agents
from zettelclaw.app import App
from zettelclaw.index import entries
from zettelclaw.index.ingest import Progress
from zettelclaw.index.log_fingerprint import LogStat
from zettelclaw.methods.agents import LISTED_AGENTS, agent_rows
from zettelclaw.methods.edge import from_domain
from zettelclaw.protocol.dispatcher import Method
from zettelclaw.protocol.params import IndexRebuildParams, StatusParams
from zettelclaw.protocol.results import (
    BriefingStatus,
    EntryCounts,
    ExtractionStatus,
    IndexStatus,
    InvalidLine,
    InvalidLines,
    LogStatus,
    MemoryStatus,
    Paths,
    Rebuilt,
    SearchStatus,
    Status,
    WorkspaceConflict,
)

ServerInfo = Callable[[], dict[str, Any]]  # the server object of status


async def index_rebuild(agents: Agents, params: IndexRebuildParams) -> Rebuilt:
    async with agents.lease(params.agent()) as app:
        return await app.syncer.exclusive(lambda: rebuild(app))


async def status(agents: Agents, server_info: ServerInfo, params: StatusParams) -> Status:
    agent = params.agent()
    server = server_info()
    async with agents.lease(agent) as app:
        await app.syncer.fresh_if_quick()  # during a long index build: its progress

        def read() -> Status:  # one thread hand-off: under load each waits its turn
            return Status.model_validate({
                **memory_status(app).__dict__, "agent": agent, "memory": app.memory,
                "extraction": from_domain(ExtractionStatus, app.extraction.status()),
                "briefing": from_domain(BriefingStatus, app.briefing.status()),
                "agents": agent_rows(agents, limit=LISTED_AGENTS, first=(agent, MAIN)),
                "agentsTotal": len(agents.roster.agents()),
                "workspaceConflicts": [from_domain(WorkspaceConflict, c)
                                       for c in agents.roster.conflicts()],
                "server": server})

        return await trio.to_thread.run_sync(read)


def methods(agents: Agents, server_info: ServerInfo) -> dict[str, Method]:
    return {
        "status": Method(StatusParams, partial(status, agents, server_info)),
        "index.rebuild": Method(IndexRebuildParams, partial(index_rebuild, agents)),
    }


def rebuild(app: App, progress: Progress | None = None) -> Rebuilt:
    """Index everything again from scratch (``zettelclaw reindex``)."""
    report = app.freshness.rebuild(progress)
    with app.index.read() as conn:
        files, chunks = entries.file_counts(conn)
    return Rebuilt(entries=report.entries, invalid_lines=report.invalid_lines,
                   memory_files=files, chunks=chunks, seconds=report.seconds)


def memory_status(app: App) -> MemoryStatus:
    home = app.home
    with app.index.read() as conn:
        counts = entries.counts(conn)
        invalid = entries.invalid_lines(conn, 5)
        meta = app.index.meta(conn)
    log_bytes = LogStat.of(home.log)
    size = log_bytes.size if log_bytes else 0
    indexed = int(str(meta.get("offset", 0)))
    progress = app.freshness.progress
    return MemoryStatus(
        version=__version__,
        pid=os.getpid(),
        uptime_seconds=round(time.monotonic() - app.started, 3),
        home=str(home.root),
        workspace=str(app.workspace),
        paths=Paths(log=str(home.log), subjects=str(home.subjects), state=str(home.state),
                    index=str(home.index)),
        log=LogStatus(bytes=size, lines=int(str(meta.get("lines", 0))),
                      unread_tail_bytes=max(size - indexed, 0)),
        entries=EntryCounts(total=counts.total, by_type=counts.by_type,
                            replaced=counts.replaced, current=counts.total - counts.replaced),
        invalid_lines=InvalidLines(count=counts.invalid_lines,
                                   first=[from_domain(InvalidLine, i) for i in invalid]),
        subjects=len(app.subjects.load()),
        search=from_domain(SearchStatus, app.searcher.status()),
        index=IndexStatus(
            bytes=sum(_size(Path(f"{home.index}{suffix}")) for suffix in ("", "-wal")),
            indexing=progress is not None, progress=list(progress) if progress else None),
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0
