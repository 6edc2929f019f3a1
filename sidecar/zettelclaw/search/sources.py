"""The pipeline's sources: where a search's candidates come from.

``Newest`` answers a search with no text (filters alone: exact, newest first). For a text,
``Keywords`` brings what the term index (log entries) and FTS5 (memory files) match, with their
match quality (``index/keyword.py``); ``Meanings`` brings what is close in meaning
(``search/semantic.py``: every text's similarity to the query) and gives every keyword
candidate its similarity too. How they are then scored: ``search/scoring.py``.
"""

from __future__ import annotations

import math

from zettelclaw.index import fts
from zettelclaw.index.database import Index
from zettelclaw.index.entries import filter_entries
from zettelclaw.index.keyword import Candidate, file_candidates, log_candidates
from zettelclaw.index.terms import TermIndex
from zettelclaw.search import weights
from zettelclaw.search.http_embeddings import EmbeddingError
from zettelclaw.search.query import Pool, Query, Stage, entry_hit
from zettelclaw.search.semantic import Semantic
from zettelclaw.search.snippets import clip

# How many texts closest in meaning become candidates (four times this many are looked at,
# those above the scale's candidate line taken).
VECTOR_CANDIDATES = 50
# A query word in more than this share of the log's entries is left out of what the model
# reads (``model_query``), since such a word says little of the query's meaning
# (bench/README.md#ranking). Not below this many entries: in a small log every word is in a
# large share.
COMMON_SHARE = 0.1
COMMON_LEAST_ENTRIES = 50


class Newest(Stage):
    """No text: the entries the filters match exactly, newest first (or in log order)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        request = query.request
        with self.index.read() as conn:
            rows = filter_entries(conn, request.filters, request.limit, request.order)
        pool.hits = [entry_hit(row, 1.0, clip(row["content"])) for row in rows]


class Keywords(Stage):
    """The log's entries the term index matches (the ``pool`` best by BM25, search.keyword)
    and the memory files' chunks FTS5 matches, with their match quality."""

    def __init__(self, index: Index, terms: TermIndex, pool: int) -> None:
        self.index = index
        self.terms = terms
        self.pool = pool

    def postings(self, query: Query) -> float:
        if query.plan is None or not query.want_log:
            return 0.0
        return self.terms.postings(self.terms.tokens(query.plan.terms),
                                   replaced=query.request.filters.include_replaced)

    def run(self, query: Query, pool: Pool) -> None:
        plan, request = query.plan, query.request
        with self.index.read() as conn:
            if plan is not None and query.want_log:
                pool.entries = log_candidates(self.terms, plan, filters=request.filters,
                                              pool=max(self.pool, request.limit),
                                              limit=request.limit)
            if plan is not None and query.want_files:
                pool.chunks = file_candidates(conn, plan, request.limit * 3)


class Meanings(Stage):
    """The texts closest in meaning to the query, and each keyword candidate's similarity; the
    scale the model's similarities are read on for this query (``Semantic.scale``). Not when
    semantic search cannot take part (the pool's ``fallback`` says why), nor for a query of
    symbols only (an emoji), whose candidates would all be alike; when the embedding service
    fails, the answer is keyword search's, saying so."""

    def __init__(self, terms: TermIndex, semantic: Semantic | None) -> None:
        self.terms = terms
        self.semantic = semantic

    def postings(self, query: Query) -> float:
        # embedding the query takes milliseconds: never a search for the event loop
        return math.inf if self.semantic is not None and self.semantic.reason is None else 0.0

    def run(self, query: Query, pool: Pool) -> None:
        if pool.mode != "hybrid" or self.semantic is None:
            return
        if not self.semantic.understands(query.text):
            return
        try:
            pool.scale = self._add(model_query(self.terms, query.text, query.plan), query, pool)
        except EmbeddingError as exc:  # the embedding server: keyword search still answers
            pool.mode, pool.fallback = "keyword", f"the embedding service failed: {exc}"

    def _add(self, text: str, query: Query, pool: Pool) -> weights.SimilarityScale:
        import numpy as np

        assert self.semantic is not None
        vector = self.semantic.query_vector(text)
        # the keyword candidates are named: a large log's older vectors are searched only
        # for the closest, and these need their similarity as well (search/vector_rows.py)
        found = [(target, *similarities(vector, list(target))) for wanted, target, similarities in (
            (query.want_log, pool.entries, self.semantic.entry_similarities),
            (query.want_files, pool.chunks, self.semantic.chunk_similarities)) if wanted]
        scale = self.semantic.scale(*[sims for _, _, sims in found])
        for target, keys, sims in found:
            if not len(keys):
                continue
            # an entry of several sentences is a candidate by its best sentence too
            said_keys, said = (self.semantic.sentence_similarities(vector, scale.floor,
                                                                   pool.entries)
                               if target is pool.entries else (keys[:0], sims[:0]))
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


def model_query(terms: TermIndex, query: str, plan: fts.MatchPlan | None) -> str:
    """The query as the model reads it: without the words that a large share of the log
    holds (COMMON_SHARE), when other words remain. Such a word (the user's name, the
    project's) tells no entry from another, yet it pulls the query's vector towards every
    short text that has it: "What are Joanna's hobbies?" was closest to "Joanna: Later,
    take care!" (bench/README.md#ranking). Keyword search weighs it down by its IDF; this is
    the same for meaning."""
    if plan is None or len(plan.terms) < 2:
        return query
    total, frequencies = terms.frequencies(terms.tokens(plan.terms))
    if total < COMMON_LEAST_ENTRIES:
        return query
    common = {term for term in plan.terms
              if any(frequencies.get(token, 0) > COMMON_SHARE * total
                     for token in terms.tokens([term]))}
    if not common or len(common) == len(plan.terms):
        return query
    kept = fts.WORD_RE.sub(lambda m: "" if m.group().lower() in common else m.group(), query)
    return " ".join(kept.split())
