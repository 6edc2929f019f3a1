"""Search as the service offers it: the log's index, the workspace's Markdown, and semantic
search when it is on; the memory files are brought up to date before each query."""

from __future__ import annotations

import time
from typing import Any

from zettelclaw.config import SearchConfig
from zettelclaw.index import entries
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.terms import TermIndex
from zettelclaw.search.engine import Answer, Engine, Request
from zettelclaw.search.semantic import Semantic


class Searcher:
    def __init__(self, index: Index, terms: TermIndex, files: WorkspaceIndexer,
                 config: SearchConfig) -> None:
        self.index = index
        self.files = files
        self.semantic = Semantic(index, config)
        self.engine = Engine(index, terms, self.semantic, config.candidate_window)

    def search(self, request: Request) -> Answer:
        self.files.sync()
        return self.engine.search(request, time.time())

    def status(self) -> dict[str, Any]:
        with self.index.read() as conn:
            files, chunks = entries.file_counts(conn)
        semantic: dict[str, Any] = {"on": self.semantic.reason is None,
                                    "reason": self.semantic.reason}
        if self.semantic.embedder is not None:
            upto, total = self.semantic.coverage()
            semantic.update(model=self.semantic.embedder.name, coveredThroughLine=upto,
                            lines=total)
        return {"memoryFiles": files, "chunks": chunks, "semantic": semantic,
                "candidateWindow": self.engine.pool}
