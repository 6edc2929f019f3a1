"""One ``memory.search``, as one pipeline of stages: candidates in, scored hits out.

A query with text runs ``ranked``: the sources (``search/sources.py``: keyword candidates from
the log and the workspace's Markdown memory, then, when it can, semantic ones), then the
scoring stages (``search/scoring.py``), each reading the ``Query`` and changing the ``Pool``
(``search/query.py``). The weights they apply are in ``search/weights.py``. A query without
text (structured filters alone) runs ``filtered``: exact, newest first.

The answer says its ``mode``: ``hybrid`` (keywords and meaning), ``keyword``, or ``filter``;
and when semantic search could not take part, ``fallback`` says why. It is never silently worse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

from zettelclaw.index import fts
from zettelclaw.index.database import Index
from zettelclaw.index.terms import TermIndex
from zettelclaw.search.query import Answer, Pool, Query, Request, Stage
from zettelclaw.search.scoring import (
    Admitted,
    Damped,
    Fused,
    Gathered,
    Ordered,
    Shown,
    Sorted,
    WhenAsked,
)
from zettelclaw.search.semantic import Semantic
from zettelclaw.search.sources import Keywords, Meanings, Newest


class Engine:
    def __init__(self, index: Index, terms: TermIndex, semantic: Semantic | None, pool: int
                 ) -> None:
        self.index = index
        self.terms = terms
        self.semantic = semantic
        self.pool = pool  # the best BM25 matches ranked by type and recency (search.keyword)
        self.filtered: list[Stage] = [Newest(index)]
        # the order docs/07-search.md gives (tests/search/test_engine.py holds them equal); a stage
        # that reorders the fused scores (a reranker) goes after Fused
        self.ranked: list[Stage] = [
            Keywords(index, terms, pool),  # source: the term index's and FTS5's matches
            Meanings(terms, semantic),  # source: the closest in meaning; every similarity
            Admitted(index),  # the candidates by meaning alone that pass the filters
            Damped(index),  # short texts' and asking entries' similarities brought down
            Fused(),  # one score: fusion, the time asked, type and recency
            WhenAsked(index),  # "when ...?": texts that name no time weighed down
            Sorted(),  # best first
            Gathered(index),  # a list question: away from near copies, to its subject
            Ordered(),  # confident meaning-only hits kept, cut to the limit
            Shown(index),  # hits with snippets
        ]

    @overload
    def search(self, request: Request, now: float) -> Answer: ...

    @overload
    def search(self, request: Request, now: float, within: int,
               ready: Callable[[], bool] = ...) -> Answer | None: ...

    def search(self, request: Request, now: float, within: int | None = None,
               ready: Callable[[], bool] | None = None) -> Answer | None:
        """The answer; given ``within``, only if its cost is bounded (else None, having run no
        stage): no stage reads more than ``within`` postings (embedding a query is not bounded
        so) and ``ready()`` holds (the caller's own condition, asked after that)."""
        query = Query(request, None if request.query is None else fts.plan(request.query), now)
        stages = self.filtered if request.query is None else self.ranked
        # from the last stage back: Meanings knows its answer without reading, Keywords reads
        # the term index's counts, ready() looks at the memory files
        if within is not None and (any(stage.postings(query) > within
                                       for stage in reversed(stages))
                                   or (ready is not None and not ready())):
            return None
        pool = Pool("filter") if request.query is None else self._pool()
        if query.plan is None and pool.mode == "keyword":
            return pool.answer()  # no word to match, and no meaning to compare
        for stage in stages:
            stage.run(query, pool)
        return pool.answer()

    def _pool(self) -> Pool:
        reason = self._semantic_reason()
        return Pool("keyword" if reason else "hybrid", fallback=reason)

    def _semantic_reason(self) -> str | None:
        if self.semantic is None:
            return "semantic search runs in the sidecar only; this answer came from the files"
        if self.semantic.reason is not None:
            return self.semantic.reason
        return self.semantic.too_large()  # partial coverage still helps: hybrid
