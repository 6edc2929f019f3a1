"""Search as the service offers it: the log's index, the workspace's Markdown, and semantic
search when it is on; the memory files are brought up to date before each query.

``search`` is for a worker thread. ``search_now`` is for the event loop itself, when the search
is known to be quick: a thread hand-off and the wake-ups around it cost about half of a rare
word's whole search (bench/README.md#search-at-a-million-entries). It answers
only when nothing it needs is busy (the index, the memory files' look), nothing needs walking,
no semantic part runs, the words have few postings, and its SQLite reads fit a small budget;
otherwise it answers None, having changed nothing, and the caller runs ``search`` in a thread.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from zettelclaw.config import SearchConfig
from zettelclaw.errors import IndexNotReadyError
from zettelclaw.index import entries
from zettelclaw.index.database import Index
from zettelclaw.index.file_chunks import WorkspaceIndexer
from zettelclaw.index.read_budget import read_now
from zettelclaw.index.terms import TermIndex
from zettelclaw.llm.host import EmbeddingOffer, HostModels
from zettelclaw.machine_state import machine_state
from zettelclaw.search.engine import Engine
from zettelclaw.search.query import Answer, Request
from zettelclaw.search.semantic import Semantic

logger = logging.getLogger(__name__)

# Postings past which a search is a thread's, not the event loop's: a rare word's, even in a
# 1M-entry log, stay below it and are quick; a common word's are many times more and take long
# enough to stall the loop (bench/README.md#search-at-a-million-entries).
NOW_POSTINGS = 20_000
NOW_SQLITE_SECONDS = 0.003  # past it, the loop gives the search to a thread


class Searcher:
    def __init__(self, index: Index, terms: TermIndex, files: WorkspaceIndexer,
                 config: SearchConfig, hosts: HostModels | None = None) -> None:
        self.index = index
        self.files = files
        self.semantic = Semantic(index, config, hosts)
        self.engine = Engine(index, terms, self.semantic, config.candidate_window)

    def search(self, request: Request) -> Answer:
        """The answer; from the index as it is, saying so (``stale``), when the memory files
        cannot be indexed again for the machine's sake (a full disk:
        tests/hostile/test_full_disk.py; once every search then answered -32010, those of the
        log and filters alone too)."""
        stale = None
        try:
            self.files.sync()
        except (OSError, sqlite3.OperationalError) as exc:
            cause = machine_state(exc)
            if cause is None:
                raise
            logger.warning("the memory files cannot be indexed again (%s); searching the index "
                           "as it is", cause)
            stale = f"the memory files changed and could not be indexed again: {cause}"
        with self._terms_gone():
            answer = self.engine.search(request, time.time())
        answer.stale = stale
        return answer

    @contextmanager
    def _terms_gone(self) -> Iterator[None]:
        """The term index deleted between the freshness check (which heals it) and the search:
        a retryable -32007 (the next search makes it again), not an internal error."""
        try:
            yield
        except (OSError, ValueError):
            if self.engine.terms.intact():
                raise
            raise IndexNotReadyError("the term index was removed and is being made again; "
                                     "try again") from None

    def search_now(self, request: Request) -> Answer | None:
        """The answer if it is quick to find and nothing it needs is busy; else None."""
        def quick() -> Answer | None:
            with self._terms_gone():
                return self.engine.search(request, time.time(), NOW_POSTINGS, self.files.current)

        return read_now(self.index, NOW_SQLITE_SECONDS, quick)

    def status(self) -> SearchStatus:
        with self.index.read() as conn:
            files, chunks = entries.file_counts(conn)
        semantic = SemanticStatus(on=self.semantic.reason is None, reason=self.semantic.reason,
                                  embeddings=self.semantic.config.embeddings,
                                  hosts=(self.semantic.hosts.describe_embedders()
                                         if self.semantic.hosts is not None else []))
        if self.semantic.embedder is not None:
            semantic.model = self.semantic.embedder.name
        if self.semantic.wanted:  # how far the vectors reach, also while the model loads
            semantic.covered_through_line, semantic.lines = self.semantic.coverage()
        semantic.state = semantic_state(self.semantic, semantic)
        return SearchStatus(memory_files=files, chunks=chunks, semantic=semantic,
                            candidate_window=self.engine.pool)


@dataclass(slots=True)
class SemanticStatus:
    """Where semantic search is (``status``'s ``search.semantic``): ``model``, and how far the
    vectors reach (``covered_through_line`` of ``lines``), None where not known; where the
    vectors come from (``embeddings``) and the connected hosts that offer theirs (``hosts``)."""

    on: bool
    reason: str | None
    embeddings: str
    hosts: list[EmbeddingOffer]
    model: str | None = None
    covered_through_line: int | None = None
    lines: int | None = None
    state: str = "off"


@dataclass(frozen=True, slots=True)
class SearchStatus:
    memory_files: int
    chunks: int
    semantic: SemanticStatus
    candidate_window: int


def semantic_state(semantic: Semantic, shown: SemanticStatus) -> str:
    """One word for where semantic search is: ``off`` (turned off, not installed, failed to
    load, or the log too large: ``reason`` says which), ``loading`` (the model is on its way;
    the first second after start, before the vectorizer begins to load it, included),
    ``catching up`` (on, part of the log without vectors yet: ``covered_through_line`` of
    ``lines``; search covers the part that has them) or ``ready``."""
    if semantic.loading:
        return "loading"
    if semantic.reason is not None:
        return "off"
    covered, lines = shown.covered_through_line or 0, shown.lines or 0
    return "catching up" if covered < lines else "ready"
