"""What one search is asked and what it answers, and what passes between the stages of the
scoring pipeline (``search/engine.py`` runs them in order): the ``Query`` the stages read, the
``Pool`` of candidates they fill and score, and the ``Stage`` each of them is.

A stage reads the query and changes the pool: a source adds candidates (``search/sources.py``),
a scoring stage weighs or orders them (``search/scoring.py``), and the last one shows the best as
hits. The weights every stage applies are in ``search/weights.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zettelclaw.index import fts
from zettelclaw.index.entries import ENTRY_COLUMNS, Filters
from zettelclaw.index.keyword import Candidate
from zettelclaw.search import weights

Corpus = Literal["all", "log", "files"]
Mode = Literal["hybrid", "keyword", "filter"]
Order = Literal["time", "log"]
# A scored candidate: (score, "log" or "file", line or chunk id, its evidence). A tuple, since
# a search sorts a few hundred of them by (score, kind, key).
Scored = tuple[float, str, int, Candidate]


@dataclass(frozen=True)
class Request:
    query: str | None
    filters: Filters
    limit: int
    min_score: float = 0.0
    corpus: Corpus = "all"
    order: Order = "time"

    @property
    def structured(self) -> bool:
        f = self.filters
        return any(v is not None for v in (f.type, f.subject, f.status, f.session, f.since,
                                           f.until))


@dataclass(frozen=True)
class EntryHit:
    entry: Mapping[str, Any]  # every column of ENTRY_COLUMNS, None when absent
    line: int
    replaced_by: str | None
    score: float
    snippet: str
    keyword: float | None = None  # match quality; None in filter mode
    semantic: float | None = None


@dataclass(frozen=True)
class ChunkHit:
    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    keyword: float = 0.0
    semantic: float | None = None


@dataclass
class Answer:
    mode: Mode
    hits: list[EntryHit | ChunkHit] = field(default_factory=list)
    fallback: str | None = None  # why not hybrid
    stale: str | None = None  # why the index may lack the latest changes (a full disk)


@dataclass(frozen=True)
class Query:
    """A request as the stages read it: its words parsed once (``plan``: None for a query
    with no word to match), and the time it is asked at."""

    request: Request
    plan: fts.MatchPlan | None
    now: float

    @property
    def text(self) -> str:
        return self.request.query or ""

    @property
    def terms(self) -> tuple[str, ...]:
        return self.plan.terms if self.plan is not None else ()

    @property
    def want_log(self) -> bool:
        return self.request.corpus in ("all", "log")

    @property
    def want_files(self) -> bool:
        """Memory files have no type, subject or time: a structured filter leaves them out."""
        return self.request.corpus in ("all", "files") and not self.request.structured


@dataclass
class Pool:
    """The candidates of one search as the stages leave them: log entries by line, memory
    files' chunks by id, the scale the model's similarities are read on, then the scored ones,
    then the hits. ``mode`` and ``fallback`` are the answer's."""

    mode: Mode
    fallback: str | None = None
    entries: dict[int, Candidate] = field(default_factory=dict)
    chunks: dict[int, Candidate] = field(default_factory=dict)
    scale: weights.SimilarityScale = weights.SHIPPED_SCALE
    scored: list[Scored] = field(default_factory=list)
    hits: list[EntryHit | ChunkHit] = field(default_factory=list)

    def answer(self) -> Answer:
        return Answer(self.mode, self.hits, self.fallback)


class Stage:
    """One step of the pipeline. ``postings``: how many postings of the term index the stage
    reads for ``query`` (``math.inf`` when its cost is not bounded that way), so that the
    engine can tell a quick search from one for a thread before running any stage."""

    def postings(self, query: Query) -> float:
        return 0.0

    def run(self, query: Query, pool: Pool) -> None:
        raise NotImplementedError


def entry_hit(row: sqlite3.Row, score: float, text: str, keyword: float | None = None,
              semantic: float | None = None) -> EntryHit:
    return EntryHit({key: row[key] for key in ENTRY_COLUMNS}, row["line"], row["replaced_by"],
                    score, text, keyword, semantic)
