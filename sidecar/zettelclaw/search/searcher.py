"""Search as the service offers it: the log's index, the workspace's Markdown, and semantic
search when it is on, kept fresh before each query; and rebuilding the index on demand."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from zettelclaw.config import SearchConfig
from zettelclaw.protocol.params import SearchParams, day_bounds
from zettelclaw.search.engine import Engine, Request
from zettelclaw.search.index import Index
from zettelclaw.search.ingest import CatchUpReport, Ingester, Progress
from zettelclaw.search.query import Filters
from zettelclaw.search.semantic import Semantic
from zettelclaw.search.workspace import WorkspaceIndexer


class Searcher:
    def __init__(self, index: Index, ingester: Ingester, workspace: Path,
                 config: SearchConfig) -> None:
        self.index = index
        self.ingester = ingester
        self.files = WorkspaceIndexer(index, workspace)
        self.semantic = Semantic(index, config)
        self.engine = Engine(index, self.semantic, config.candidate_window)

    def search(self, params: SearchParams) -> dict[str, Any]:
        self.files.sync()
        filters = Filters(
            type=params.type, subject=params.subject, status=params.status,
            session=params.session,
            since=None if params.since is None else day_bounds(params.since, end=False),
            until=None if params.until is None else day_bounds(params.until, end=True),
            include_replaced=params.include_replaced,
        )
        text = params.query if params.query and params.query.strip() else None
        request = Request(text, filters, params.max_results, params.min_score, params.corpus,
                          params.order)
        return self.engine.search(request, time.time())

    def rebuild(self, progress: Progress | None = None) -> CatchUpReport:
        """Index the log and the memory files again from scratch (vectors are kept: they are
        keyed by text, and reused)."""
        self.ingester.reset()
        report = self.ingester.catch_up(progress)
        self.files.reset()
        self.files.sync()
        return report

    def status(self) -> dict[str, Any]:
        with self.index.read() as conn:
            files, chunks = conn.execute(
                "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks)").fetchone()
        semantic: dict[str, Any] = {"on": self.semantic.reason is None,
                                    "reason": self.semantic.reason}
        if self.semantic.embedder is not None:
            upto, total = self.semantic.coverage()
            semantic.update(model=self.semantic.embedder.name, coveredThroughLine=upto,
                            lines=total)
        return {"memoryFiles": files, "chunks": chunks, "semantic": semantic,
                "candidateWindow": self.engine.window}
