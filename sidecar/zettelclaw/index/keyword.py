"""Keyword candidates: what FTS5 finds for a query in the log and in the memory files, and how
well each matches.

A match's quality is the share of the query's words it contains times its BM25 relative to the
best BM25 of the query in the same source (1 for the best match). Relative, because BM25's raw
values mean little across queries and corpora (FTS5 even gives a word found in most entries
almost no weight); by share of words, because an entry with two of three words is closer than
one with one of three.

Log candidates come in log order, newest first, at most ``window`` of them: BM25 over every
match of a word found in a hundred thousand entries would cost more than it is worth, and with
recency in the score the best results are among its newest matches. Entries with every word
are taken first; entries with some of them only when there are fewer than ``limit`` of those.
In keyword mode, when the every-word pass suffices, SQLite scores the window itself and returns
only the best ``limit`` rows: no Python loop over a thousand candidates.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from zettelclaw.index import fts, ranking
from zettelclaw.index.entries import BM25


@dataclass
class Candidate:
    keyword: float = 0.0  # match quality in [0, 1]; 0 when only semantic search found it
    semantic: float | None = None  # cosine similarity, in hybrid mode
    meta: tuple[str, str | None, float] | None = None  # a log entry's type, status, ts
    score: float | None = None  # final, when SQLite already ranked it


def _window_sql(where: str) -> str:
    # Only code-made SQL is interpolated (the filters' clauses); values are bound.
    return ("SELECT e.line AS line, e.type AS kind, e.status AS status, e.ts AS ts,"  # noqa: S608
            f" {BM25} AS bm25 FROM entries_fts JOIN entries e ON e.line = entries_fts.rowid"
            f" WHERE entries_fts MATCH ? AND {where} ORDER BY entries_fts.rowid DESC LIMIT ?")


def log_candidates(conn: sqlite3.Connection, plan: fts.MatchPlan, *, where: str,
                   params: list[Any], window: int, limit: int, now: float | None
                   ) -> tuple[dict[int, Candidate], bool]:
    """Candidates by line, and whether a window was full. ``now``: keyword mode (rank in SQL
    when possible); None: hybrid (every candidate is needed, to fuse with its vector)."""
    args = [plan.all_terms, *params, window]
    if now is not None:
        score = ranking.entry_score_sql("rel", kind="kind", status="status", ts="ts", now="?")
        rows = conn.execute(
            "SELECT line, kind, status, ts, bm25, rel, matched,"  # noqa: S608
            f" {score} AS score FROM ("
            " SELECT *, bm25 / coalesce(nullif(min(bm25) OVER (), 0), -1) AS rel,"
            f" count(*) OVER () AS matched FROM ({_window_sql(where)}))"
            " ORDER BY score DESC LIMIT ?", [now, *args, limit]).fetchall()
        if rows and rows[0][6] >= limit:  # enough entries with every word: ranked already
            return ({line: Candidate(keyword=relative, meta=(kind, status, ts), score=score)
                     for line, kind, status, ts, _, relative, _, score in rows},
                    rows[0][6] == window)
        every = [row[:5] for row in rows]
    else:
        every = conn.execute(_window_sql(where), args).fetchall()
    full = len(every) == window
    some: list[Any] = []
    coverage: dict[int, float] = {}
    if plan.any_term is not None and len(every) < limit:
        seen = {row[0] for row in every}
        some = [row for row in conn.execute(_window_sql(where), [plan.any_term, *params, window])
                if row[0] not in seen]
        full = full or len(some) + len(seen) >= window
        coverage = _coverage(conn, "entries_fts", plan, [row[0] for row in some])
    rows = [*every, *some]
    best = max((-row[4] for row in rows), default=1.0) or 1.0
    return ({line: Candidate(keyword=coverage.get(line, 1.0) * max(-bm25, 0.0) / best,
                             meta=(kind, status, ts)) for line, kind, status, ts, bm25 in rows},
            full)


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
    """The share of the query's words each of ``keys`` contains (FTS5 decides what a word
    matches: stems, diacritics). Only the rows at or after the first key are read."""
    if len(plan.terms) < 2 or not keys:
        return {}
    wanted, low = set(keys), min(keys)
    counts = dict.fromkeys(keys, 0)
    for term in plan.terms:
        for (key,) in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?"  # noqa: S608
                                   " AND rowid >= ?", (f'"{term}"', low)):
            if key in wanted:
                counts[key] += 1
    return {key: n / len(plan.terms) for key, n in counts.items()}
