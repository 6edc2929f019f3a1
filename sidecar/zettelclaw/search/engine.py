"""One ``memory.search``: keyword and (when it can) semantic candidates from the log and the
workspace's Markdown memory, scored on one scale, in memory-core's result shape.

Keyword candidates and their match quality come from ``search.keyword``; semantic ones from
``search.semantic``; ``search.ranking`` turns them into one score. The answer says its ``mode``:
``hybrid`` (keywords and meaning), ``keyword``, or ``filter`` (structured filters alone, exact,
newest timestamp first); and when semantic search could not take part, ``fallback`` says why.
It is never silently worse.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from zettelclaw.search import fts, ranking
from zettelclaw.search.index import Index
from zettelclaw.search.keyword import Candidate, file_candidates, log_candidates
from zettelclaw.search.query import ENTRY_COLUMNS, Filters, filter_entries
from zettelclaw.search.semantic import Semantic
from zettelclaw.search.snippets import snippet

Corpus = Literal["all", "log", "files"]
Order = Literal["time", "log"]
VECTOR_CANDIDATES = 50
# A text that shares no word with the query is a result only when it is this close in meaning:
# below it, all-MiniLM-L6-v2 puts unrelated sentences (0.0-0.2) and loose associations.
MIN_SIMILARITY = 0.3


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


class Engine:
    def __init__(self, index: Index, semantic: Semantic | None, window: int) -> None:
        self.index = index
        self.semantic = semantic
        self.window = window

    def search(self, request: Request, now: float) -> dict[str, Any]:
        if request.query is None:
            with self.index.read() as conn:
                results = filter_entries(conn, request.filters, request.limit, request.order)
            return {"results": _with_memory_core_fields(results), "mode": "filter"}
        plan = fts.plan(request.query)
        reason = self._semantic_reason()
        answer: dict[str, Any] = {"mode": "keyword" if reason else "hybrid"}
        if reason:
            answer["fallback"] = {"reason": reason}
        if plan is None and reason:
            return {"results": [], **answer}
        entries: dict[int, Candidate] = {}
        chunks: dict[int, Candidate] = {}
        want_log = request.corpus in ("all", "log")
        want_files = request.corpus in ("all", "files") and not request.structured
        where, params = request.filters.sql()
        with self.index.read() as conn:
            if plan is not None and want_log:
                entries, full = log_candidates(conn, plan, where=where, params=params,
                                               window=self.window, limit=request.limit,
                                               now=None if reason is None else now)
                if full:
                    answer["window"] = {"size": self.window, "note": (
                        f"more than {self.window} entries match; the {self.window} newest "
                        "matches were ranked")}
            if plan is not None and want_files:
                chunks = file_candidates(conn, plan, request.limit * 3)
        if not reason:
            self._add_semantic(request.query, want_log, want_files, entries, chunks)
        with self.index.read() as conn:
            results = self._rank(conn, plan, request, entries=entries, chunks=chunks, now=now,
                                 where=where, params=params)
        answer["results"] = results
        return answer

    def _semantic_reason(self) -> str | None:
        if self.semantic is None:
            return "semantic search runs in the sidecar only; this answer came from the files"
        if self.semantic.reason is not None:
            return self.semantic.reason
        return self.semantic.too_large()  # partial coverage still helps: hybrid

    def _add_semantic(self, query: str, want_log: bool, want_files: bool,
                      entries: dict[int, Candidate], chunks: dict[int, Candidate]) -> None:
        import numpy as np

        assert self.semantic is not None
        vector = self.semantic.query_vector(query)
        for wanted, target, similarities in (
                (want_log, entries, self.semantic.entry_similarities),
                (want_files, chunks, self.semantic.chunk_similarities)):
            if not wanted:
                continue
            keys, sims = similarities(vector)
            if not len(keys):
                continue
            top = np.argsort(-sims)[:VECTOR_CANDIDATES * 4]
            for i in top:
                if sims[i] >= MIN_SIMILARITY or int(keys[i]) in target:
                    target.setdefault(int(keys[i]), Candidate()).semantic = float(sims[i])
            for key, candidate in target.items():  # keyword candidates get their similarity
                if candidate.semantic is None:
                    at = int(np.searchsorted(keys, key))
                    if at < len(keys) and keys[at] == key:
                        candidate.semantic = float(sims[at])

    def _rank(self, conn: sqlite3.Connection, plan: fts.MatchPlan | None, request: Request, *,
              entries: dict[int, Candidate], chunks: dict[int, Candidate], now: float,
              where: str, params: list[Any]) -> list[dict[str, Any]]:
        scored: list[tuple[float, str, int, Candidate]] = []
        unchecked = [line for line, c in entries.items() if c.meta is None]  # from vectors
        for row in _filtered(conn, unchecked, where=where, params=params):
            entries[row[0]].meta = (row[1], row[2], row[3])
        for line, c in entries.items():
            if c.meta is None:  # a vector candidate the filters leave out
                continue
            kind, status, ts = c.meta
            if c.score is not None:  # ranked by SQLite already
                scored.append((c.score, "log", line, c))
                continue
            match = ranking.fuse(c.keyword, c.semantic)
            scored.append((ranking.entry_score(match, kind, status, ts, now), "log", line, c))
        for chunk_id, c in chunks.items():
            scored.append((ranking.fuse(c.keyword, c.semantic) / ranking.MAX_TYPE_WEIGHT,
                           "file", chunk_id, c))
        scored = [s for s in scored if s[0] > 0 and s[0] >= request.min_score]
        scored.sort(key=lambda s: (-s[0], s[1], -s[2]))
        top = scored[:request.limit]
        rows = {kind: _by_key(conn, kind, [k for _, kd, k, _ in top if kd == kind])
                for kind in ("log", "file")}
        terms = plan.terms if plan is not None else ()
        results = []
        for score, kind, key, candidate in top:
            row = rows[kind][key]
            if kind == "log":
                result: dict[str, Any] = {k: row[k] for k in ENTRY_COLUMNS}
                result.update(path=row["id"], startLine=row["line"], endLine=row["line"],
                              line=row["line"], replacedBy=row["replaced_by"], source="log",
                              citation=f"log.jsonl#L{row['line']}",
                              snippet=snippet([row["content"], row["detail"]], terms))
            else:
                lines = (f"#L{row['start_line']}" if row["start_line"] == row["end_line"]
                         else f"#L{row['start_line']}-L{row['end_line']}")
                result = {"path": row["path"], "startLine": row["start_line"],
                          "endLine": row["end_line"], "source": "memory",
                          "citation": f"{row['path']}{lines}",
                          "snippet": snippet([row["text"]], terms)}
            result["score"] = round(score, 6)
            result["textScore"] = round(candidate.keyword, 6)
            if candidate.semantic is not None:
                result["vectorScore"] = round(candidate.semantic, 6)
            results.append(result)
        return results


TABLES = {"log": ("entries", "line"), "file": ("chunks", "id")}


def _by_key(conn: sqlite3.Connection, kind: str, keys: list[int]) -> dict[int, sqlite3.Row]:
    table, key = TABLES[kind]
    if not keys:
        return {}
    rows = conn.execute(f"SELECT * FROM {table} WHERE {key} IN"  # noqa: S608
                        f" ({','.join('?' * len(keys))})", keys).fetchall()
    return {row[key]: row for row in rows}


def _filtered(conn: sqlite3.Connection, lines: list[int], *, where: str, params: list[Any]
              ) -> Sequence[sqlite3.Row]:
    """(line, type, status, ts) of the vector candidates that pass the filters."""
    found: list[sqlite3.Row] = []
    for start in range(0, len(lines), 500):
        part = lines[start:start + 500]
        found += conn.execute(
            "SELECT e.line, e.type, e.status, e.ts FROM entries e"  # noqa: S608
            f" WHERE e.line IN ({','.join('?' * len(part))}) AND {where}",
            [*part, *params]).fetchall()
    return found


def _with_memory_core_fields(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for r in results:
        r.update(startLine=r["line"], endLine=r["line"], citation=f"log.jsonl#L{r['line']}")
    return results
