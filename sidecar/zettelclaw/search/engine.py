"""One ``memory.search``: keyword and (when it can) semantic candidates from the log and the
workspace's Markdown memory, scored on one scale, as hits (``protocol/results.py`` gives them
memory-core's result shape).

Keyword candidates and their match quality come from ``search.keyword``; semantic ones from
``search.semantic``; ``search.ranking`` turns them into one score. The answer says its ``mode``:
``hybrid`` (keywords and meaning), ``keyword``, or ``filter`` (structured filters alone, exact,
newest timestamp first); and when semantic search could not take part, ``fallback`` says why.
It is never silently worse.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zettelclaw.index import fts, ranking
from zettelclaw.index.database import Index
from zettelclaw.index.entries import (
    ENTRY_COLUMNS,
    Filters,
    filter_entries,
    passing_filters,
    rows_by_key,
    texts,
    texts_and_subjects,
)
from zettelclaw.index.ingest import entry_text
from zettelclaw.index.keyword import Candidate, file_candidates, log_candidates
from zettelclaw.index.terms import TermIndex
from zettelclaw.search import dates, gather
from zettelclaw.search.http_embeddings import EmbeddingError
from zettelclaw.search.pieces import asks, words
from zettelclaw.search.semantic import Semantic
from zettelclaw.search.snippets import clip, snippet

Corpus = Literal["all", "log", "files"]
Mode = Literal["hybrid", "keyword", "filter"]
Order = Literal["time", "log"]
VECTOR_CANDIDATES = 50
# A query word in more than this share of the log's entries is left out of what the model
# reads (``Engine._model_query``), since such a word says little of the query's meaning
# (bench/README.md#ranking). Not below this many entries: in a small log every word is in a
# large share.
COMMON_SHARE = 0.1
COMMON_LEAST_ENTRIES = 50


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


class Engine:
    def __init__(self, index: Index, terms: TermIndex, semantic: Semantic | None, pool: int
                 ) -> None:
        self.index = index
        self.terms = terms
        self.semantic = semantic
        self.pool = pool  # the best BM25 matches ranked by type and recency (search.keyword)

    def search(self, request: Request, now: float) -> Answer:
        if request.query is None:
            with self.index.read() as conn:
                rows = filter_entries(conn, request.filters, request.limit, request.order)
            return Answer("filter", [_entry_hit(row, 1.0, clip(row["content"]))
                                     for row in rows])
        plan = fts.plan(request.query)
        reason = self._semantic_reason()
        answer = Answer("keyword" if reason else "hybrid", fallback=reason)
        if plan is None and reason:
            return answer
        entries: dict[int, Candidate] = {}
        chunks: dict[int, Candidate] = {}
        want_log = request.corpus in ("all", "log")
        want_files = request.corpus in ("all", "files") and not request.structured
        with self.index.read() as conn:
            if plan is not None and want_log:
                entries = log_candidates(self.terms, plan, filters=request.filters,
                                         pool=max(self.pool, request.limit),
                                         limit=request.limit)
            if plan is not None and want_files:
                chunks = file_candidates(conn, plan, request.limit * 3)
        assert self.semantic is not None or reason
        scale = ranking.SHIPPED_SCALE
        # a query of symbols only (emoji): no semantic candidates, which would all be alike
        if not reason and self.semantic is not None and self.semantic.understands(request.query):
            try:
                scale = self._add_semantic(self._model_query(request.query, plan), want_log,
                                           want_files, entries, chunks)
            except EmbeddingError as exc:  # the embedding server: keyword search still answers
                answer.mode, answer.fallback = "keyword", f"the embedding service failed: {exc}"
        with self.index.read() as conn:
            answer.hits = self._rank(conn, plan, request, entries=entries, chunks=chunks,
                                     now=now, scale=scale)
        return answer

    def bounded(self, request: Request, postings: int) -> bool:
        """Whether the search's cost is bounded: no semantic part (embedding the query takes
        milliseconds) and, for a keyword search of the log, at most ``postings`` postings
        to read (its SQLite reads are bounded by the caller: ``index/read_budget.py``)."""
        if request.query is None:
            return True
        # semantic search may take part: the search decides (it asks too_large(), a count of
        # the entries, which would be paid twice here)
        if self.semantic is not None and self.semantic.reason is None:
            return False
        plan = fts.plan(request.query)
        if plan is None or request.corpus == "files":
            return True
        return self.terms.postings(self.terms.tokens(plan.terms),
                                   replaced=request.filters.include_replaced) <= postings

    def _semantic_reason(self) -> str | None:
        if self.semantic is None:
            return "semantic search runs in the sidecar only; this answer came from the files"
        if self.semantic.reason is not None:
            return self.semantic.reason
        return self.semantic.too_large()  # partial coverage still helps: hybrid

    def _model_query(self, query: str, plan: fts.MatchPlan | None) -> str:
        """The query as the model reads it: without the words that a large share of the log
        holds (COMMON_SHARE), when other words remain. Such a word (the user's name, the
        project's) tells no entry from another, yet it pulls the query's vector towards every
        short text that has it: "What are Joanna's hobbies?" was closest to "Joanna: Later,
        take care!" (bench/README.md#ranking). Keyword search weighs it down by its IDF;
        this is the same for meaning."""
        if plan is None or len(plan.terms) < 2:
            return query
        total, frequencies = self.terms.frequencies(self.terms.tokens(plan.terms))
        if total < COMMON_LEAST_ENTRIES:
            return query
        common = {term for term in plan.terms
                  if any(frequencies.get(token, 0) > COMMON_SHARE * total
                         for token in self.terms.tokens([term]))}
        if not common or len(common) == len(plan.terms):
            return query
        kept = fts.WORD_RE.sub(lambda m: "" if m.group().lower() in common else m.group(), query)
        return " ".join(kept.split())

    def _add_semantic(self, query: str, want_log: bool, want_files: bool,
                      entries: dict[int, Candidate], chunks: dict[int, Candidate]
                      ) -> ranking.SimilarityScale:
        """Semantic candidates and every keyword candidate's similarity; the scale the
        model's similarities are read on for this query (``Semantic.scale``)."""
        import numpy as np

        assert self.semantic is not None
        vector = self.semantic.query_vector(query)
        found = [(target, *similarities(vector)) for wanted, target, similarities in (
            (want_log, entries, self.semantic.entry_similarities),
            (want_files, chunks, self.semantic.chunk_similarities)) if wanted]
        scale = self.semantic.scale(*[sims for _, _, sims in found])
        for target, keys, sims in found:
            if not len(keys):
                continue
            # an entry of several sentences is a candidate by its best sentence too
            said_keys, said = (self.semantic.sentence_similarities(vector, scale.floor)
                               if target is entries else (keys[:0], sims[:0]))
            by = sims
            if len(said_keys):
                by = sims.copy()
                at = np.searchsorted(keys, said_keys).clip(0, len(keys) - 1)
                hit = keys[at] == said_keys
                by[at[hit]] = np.maximum(by[at[hit]], said[hit])
            wanted_top = min(VECTOR_CANDIDATES * 4, len(by))
            # the best few hundred without sorting them all (a full sort was a large share of a
            # hybrid search: bench/README.md#ranking)
            top = np.argpartition(-by, wanted_top - 1)[:wanted_top]
            for i in top:
                if by[i] >= scale.candidate or int(keys[i]) in target:
                    target.setdefault(int(keys[i]), Candidate()).semantic = float(sims[i])
            for key, candidate in target.items():  # keyword candidates get their similarity
                if candidate.semantic is None:
                    at_key = int(np.searchsorted(keys, key))
                    if at_key < len(keys) and keys[at_key] == key:
                        candidate.semantic = float(sims[at_key])
                if len(said_keys):
                    at_key = int(np.searchsorted(said_keys, key))
                    if at_key < len(said_keys) and said_keys[at_key] == key:
                        candidate.part = float(said[at_key])
        return scale

    def _rank(self, conn: sqlite3.Connection, plan: fts.MatchPlan | None, request: Request, *,
              entries: dict[int, Candidate], chunks: dict[int, Candidate], now: float,
              scale: ranking.SimilarityScale) -> list[EntryHit | ChunkHit]:
        scored: list[tuple[float, str, int, Candidate]] = []
        unchecked = [line for line, c in entries.items() if c.meta is None]  # from vectors
        for row in passing_filters(conn, unchecked, request.filters):
            entries[row[0]].meta = (row[1], row[2], row[3])
        ranked = [c for c in entries.values() if c.meta is not None]  # passed the filters
        _damp_similarities(conn, entries, scale.floor)
        ranked += chunks.values()
        best = max((c.semantic for c in ranked if c.semantic is not None), default=0.0)
        share = ranking.keyword_share(max((c.keyword for c in ranked), default=0.0))
        asked = dates.window(request.query, now) if request.query else None
        for line, c in entries.items():
            if c.meta is None:  # a vector candidate the filters leave out
                continue
            kind, status, ts = c.meta
            match = ranking.fuse(c.keyword, c.semantic, best, share, scale)
            if asked is not None and not asked[0] <= ts < asked[1]:
                match *= ranking.OUTSIDE_TIME_ASKED
            scored.append((ranking.entry_score(match, kind, status, ts, now), "log", line, c))
        outside = ranking.OUTSIDE_TIME_ASKED if asked is not None else 1.0  # a file has no time
        for chunk_id, c in chunks.items():
            scored.append((outside * ranking.fuse(c.keyword, c.semantic, best, share, scale)
                           / ranking.MAX_TYPE_WEIGHT, "file", chunk_id, c))
        if request.query and dates.asks_when(request.query):
            scored = _weigh_when(conn, scored, request.limit)
        scored.sort(key=lambda s: (-s[0], s[1], -s[2]))
        if request.query and gather.asks_many(request.query):  # a list: search/gather.py
            scored = _spread(conn, request.query, scored, min(request.limit, gather.MOST))
        scored = _keep_confident(scored, scale)
        scored = [s for s in scored if s[0] > 0 and s[0] >= request.min_score]
        top = scored[:request.limit]
        rows = {kind: rows_by_key(conn, kind, [k for _, kd, k, _ in top if kd == kind])
                for kind in ("log", "file")}
        terms = plan.terms if plan is not None else ()
        hits: list[EntryHit | ChunkHit] = []
        for score, kind, key, candidate in top:
            shown = rows[kind].get(key)
            if shown is None:  # a term index a moment ahead of another process's rebuild
                continue
            if kind == "log":
                text = snippet([shown["content"], shown["detail"]], terms)
                hits.append(_entry_hit(shown, score, text, candidate.keyword, candidate.semantic))
            else:
                hits.append(ChunkHit(shown["path"], shown["start_line"], shown["end_line"], score,
                                     snippet([shown["text"]], terms), candidate.keyword,
                                     candidate.semantic))
        return hits


def _keep_confident(scored: list[tuple[float, str, int, Candidate]],
                    scale: ranking.SimilarityScale) -> list[tuple[float, str, int, Candidate]]:
    """``scored`` (best first) with each confident meaning-only hit at ranking.CONFIDENT_PLACE
    at the lowest: a text no keyword found, among the query's ranking.CONFIDENT_DENSE_RANK
    closest in meaning, and clearly above the model's floor (``scale.confident``). Keyword
    matches on a word the question shares with many texts ("interests" in "That's
    interesting!") outweighed it however close its meaning was (bench/README.md, LoCoMo round
    10); it takes the place and the score of the text it passes."""
    place = ranking.CONFIDENT_PLACE
    if len(scored) <= place:
        return scored
    closest = heapq.nlargest(ranking.CONFIDENT_DENSE_RANK, range(len(scored)),
                             key=lambda i: scored[i][3].semantic or -1.0)
    lifted = sorted(i for i in closest if i >= place and scored[i][3].keyword == 0
                    and (scored[i][3].semantic or -1.0) >= scale.confident)
    for at, i in enumerate(lifted):
        _, kind, key, c = scored.pop(i)
        scored.insert(place - 1 + at, (scored[place - 1 + at][0], kind, key, c))
    return scored


def _spread(conn: sqlite3.Connection, query: str,
            scored: list[tuple[float, str, int, Candidate]], limit: int
            ) -> list[tuple[float, str, int, Candidate]]:
    """``scored`` with its first ``limit`` chosen away from near copies and towards the subject
    the question names (gather.spread); each place keeps its score, so that scores still fall
    down the list."""
    window = scored[:gather.WINDOW * limit]
    lines = [key for _, kind, key, _ in window if kind == "log"]
    said = {line: gather.Said(gather.words(entry_text(content, detail)), gather.names(query, name))
            for line, content, detail, name in texts_and_subjects(conn, lines)}
    spread = gather.spread(scored, lambda s: said.get(s[2], gather.Said()) if s[1] == "log"
                           else gather.Said(), lambda s: s[0], limit)
    return [(place[0], kind, key, c) for place, (_, kind, key, c) in zip(scored, spread,
                                                                          strict=True)]


def _weigh_when(conn: sqlite3.Connection, scored: list[tuple[float, str, int, Candidate]],
                limit: int) -> list[tuple[float, str, int, Candidate]]:
    """For a query that asks when (``dates.asks_when``): the scores of the texts that name no
    time (``dates.names_time``) times ``ranking.NO_TIME_WHEN_ASKED``. Only the candidates that
    could still be among the first ``limit`` are read: weighing down never lifts a score, so
    one below that factor times the ``limit``-th best score now stays out either way."""
    if not scored:
        return scored
    at_least = ranking.NO_TIME_WHEN_ASKED * heapq.nlargest(limit, (s[0] for s in scored))[-1]
    near = [s for s in scored if s[0] >= at_least]
    lines = [key for _, kind, key, _ in near if kind == "log"]
    ids = [key for _, kind, key, _ in near if kind == "file"]
    timeless = ({("log", line) for line, content, detail in texts(conn, lines)
                 if not dates.names_time(entry_text(content, detail))}
                | {("file", chunk_id) for chunk_id, row in rows_by_key(conn, "file", ids).items()
                   if not dates.names_time(row["text"])})
    return [(score * ranking.NO_TIME_WHEN_ASKED, kind, key, c) if (kind, key) in timeless
            else (score, kind, key, c) for score, kind, key, c in scored]


def _damp_similarities(conn: sqlite3.Connection, entries: dict[int, Candidate], floor: float
                      ) -> None:
    """Entries' similarities, damped for texts of few words (ranking.damped_similarity); then
    an entry's best sentence's where it is closer (``search/pieces.py``: damped already); then
    damped again for an entry that ends by asking (ranking.asking_similarity)."""
    def above(similarity: float | None) -> bool:
        return similarity is not None and similarity > floor

    read = {line for line, c in entries.items()
            if c.meta is not None and (above(c.semantic) or above(c.part))}
    for line, c in entries.items():
        if line not in read:  # nothing above the floor to damp
            _closer_part(c)
    for line, content, detail in texts(conn, list(read)):
        c = entries[line]
        assert c.meta is not None
        text = entry_text(content, detail)
        if c.semantic is not None and c.semantic > floor:
            c.semantic = ranking.damped_similarity(c.semantic, words(text), floor)
        _closer_part(c)
        if c.semantic is not None and asks(text):
            c.semantic = ranking.asking_similarity(c.semantic, c.meta[0], floor)


def _closer_part(c: Candidate) -> None:
    if c.part is not None and (c.semantic is None or c.part > c.semantic):
        c.semantic = c.part


def _entry_hit(row: sqlite3.Row, score: float, text: str, keyword: float | None = None,
               semantic: float | None = None) -> EntryHit:
    return EntryHit({key: row[key] for key in ENTRY_COLUMNS}, row["line"], row["replaced_by"],
                    score, text, keyword, semantic)
