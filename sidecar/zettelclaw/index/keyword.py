"""Keyword candidates: what the term index (log entries) and FTS5 (memory files) find for a
query, and how well each matches.

A match's quality is the share of the query's words it contains times its BM25 relative to the
best BM25 of the query in the same source (1 for the best match). Relative, because BM25's raw
values mean little across queries and corpora; by share of words, because an entry with two of
three words is closer than one with one of three. The share weighs each word by its IDF in the
source: for "do I eat coriander?", an entry with only "eat" (in many entries) holds a small part
of what was asked, and a note with "coriander" most of it (measured with tests/quality: the
note went from rank 6 to the top 5 when the share was counted in words).

Log candidates are the ``pool`` best entries by BM25 among every match (the term index prunes
with block-max WAND; no window of newest matches): entries with every word first, and entries
with some of them only when fewer than ``limit`` have every word. ``search/scoring.py`` then weighs
them by type and recency; the pool (``search.candidateWindow``, 100 by default) leaves out only
entries whose BM25 is far below the best, which type and recency (at most a factor of 1.1 / 0.6)
could not lift to the top (protocol.md: ties of very common words are the exception).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from zettelclaw.index import fts
from zettelclaw.index.entries import Filters, entry_dict
from zettelclaw.index.fts import idf
from zettelclaw.index.terms import TermIndex
from zettelclaw.log.schema import EntryRecord

RELATED_TERMS = 24


@dataclass
class Candidate:
    keyword: float = 0.0  # match quality in [0, 1]; 0 when only semantic search found it
    semantic: float | None = None  # cosine similarity, in hybrid mode
    part: float | None = None  # a log entry's best sentence's, damped (search/pieces.py)
    meta: tuple[str, str | None, float] | None = None  # a log entry's type, status, ts


def log_candidates(terms: TermIndex, plan: fts.MatchPlan, *, filters: Filters, pool: int,
                   limit: int) -> dict[int, Candidate]:
    """Candidates by line, with their type, status and time for the ranking (from the term
    index's fast fields)."""
    tokens = terms.tokens(plan.terms)
    hits = terms.search(tokens, every=True, filters=filters, limit=pool)
    coverage: dict[int, float] = {}
    if len(hits) < limit and len(tokens) > 1:
        seen = {hit.line for hit in hits}
        some = [hit for hit in terms.search(tokens, every=False, filters=filters, limit=pool)
                if hit.line not in seen]
        lines = [hit.line for hit in some]
        total, frequencies = terms.frequencies(tokens)
        weights = {token: idf(df, total) for token, df in frequencies.items()}
        matched = terms.held(weights, lines, replaced=filters.include_replaced)
        whole = sum(weights.values())
        coverage = {line: matched.get(line, 0.0) / whole for line in lines}
        hits += some
    best = max((hit.bm25 for hit in hits), default=1.0) or 1.0
    return {hit.line: Candidate(keyword=coverage.get(hit.line, 1.0) * hit.bm25 / best,
                                meta=(hit.type, hit.status, hit.ts)) for hit in hits}


def related(conn: sqlite3.Connection, terms: TermIndex, text: str, limit: int
            ) -> list[EntryRecord]:
    """Current entries that share the most distinctive words with ``text``, best first.

    Used to show the extraction model what memory already holds, so that a correction comes
    back with ``replaces``. Long words are the most distinctive; BM25 weighs rare ones up.
    """
    match = fts.plan(text) if limit > 0 else None
    if match is None:
        return []
    words = sorted(match.terms, key=len, reverse=True)[:RELATED_TERMS]
    hits = terms.search(terms.tokens(words), every=False, filters=Filters(), limit=limit)
    rows = {row["line"]: row for row in conn.execute(
        f"SELECT * FROM entries WHERE line IN ({','.join('?' * len(hits))})",  # noqa: S608
        [hit.line for hit in hits])} if hits else {}
    return [entry_dict(rows[hit.line]) for hit in hits if hit.line in rows]


def file_candidates(conn: sqlite3.Connection, plan: fts.MatchPlan, limit: int
                    ) -> dict[int, Candidate]:
    """Candidates among the memory files' chunks (few: all of them are ranked)."""
    rows = conn.execute("SELECT rowid, bm25(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?"
                        " ORDER BY rank LIMIT ?", (plan.any_term or plan.all_terms,
                                                   limit)).fetchall()
    coverage = _coverage(conn, "chunks_fts", plan, [row[0] for row in rows])
    best = max((-bm25 for _, bm25 in rows), default=1.0) or 1.0
    return {key: Candidate(keyword=coverage.get(key, 1.0) * max(-bm25, 0.0) / best)
            for key, bm25 in rows}


def _coverage(conn: sqlite3.Connection, table: str, plan: fts.MatchPlan, keys: list[int]
              ) -> dict[int, float]:
    """The IDF-weighted share of the query's words each of ``keys`` contains (FTS5 decides
    what a word matches: stems, diacritics)."""
    if len(plan.terms) < 2 or not keys:
        return {}
    wanted = set(keys)
    total = int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])  # noqa: S608
    matched = dict.fromkeys(keys, 0.0)
    weights = []
    for term in plan.terms:
        found = [key for (key,) in conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (f'"{term}"',))]  # noqa: S608
        weight = idf(len(found), total)
        weights.append(weight)
        for key in found:
            if key in wanted:
                matched[key] += weight
    return {key: w / sum(weights) for key, w in matched.items()}
