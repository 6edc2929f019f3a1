"""The pipeline's scoring stages, in the order ``search/engine.py`` runs them after the sources:
the candidates the filters admit (``Admitted``), their similarities damped (``Damped``), one
score each (``Fused``), weighed down for a question that asks when (``WhenAsked``), best first
(``Sorted``), a list question's first results gathered (``Gathered``, ``search/gather.py``), cut
to the limit (``Ordered``), shown as hits (``Shown``). Every weight and formula they
apply is in ``search/weights.py``; why each is what it is, there.
"""

from __future__ import annotations

import heapq
import sqlite3

from zettelclaw.index.database import Index
from zettelclaw.index.entries import passing_filters, rows_by_key, texts, texts_and_subjects
from zettelclaw.index.entry_rows import entry_text
from zettelclaw.index.keyword import Candidate
from zettelclaw.search import dates, gather, weights
from zettelclaw.search.pieces import asks, words
from zettelclaw.search.query import ChunkHit, EntryHit, Pool, Query, Scored, Stage, entry_hit
from zettelclaw.search.snippets import snippet


class Admitted(Stage):
    """The log's candidates that pass the request's filters: a keyword candidate has passed
    them in the term index; a candidate by meaning alone is looked up."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        entries = pool.entries
        unchecked = [line for line, c in entries.items() if c.meta is None]
        with self.index.read() as conn:
            for row in passing_filters(conn, unchecked, query.request.filters):
                entries[row[0]].meta = (row[1], row[2], row[3])
        pool.entries = {line: c for line, c in entries.items() if c.meta is not None}


class Damped(Stage):
    """Entries' similarities, damped for texts of few words (weights.damped_similarity); then
    an entry's best sentence's where it is closer (``search/pieces.py``: damped already); then
    damped again for an entry that ends by asking (weights.asking_similarity)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        floor = pool.scale.floor

        def above(similarity: float | None) -> bool:
            return similarity is not None and similarity > floor

        entries = pool.entries
        read = {line for line, c in entries.items() if above(c.semantic) or above(c.part)}
        for line, c in entries.items():
            if line not in read:  # nothing above the floor to damp
                _closer_part(c)
        with self.index.read() as conn:
            found = list(texts(conn, list(read)))
        for line, content, detail in found:
            c = entries[line]
            assert c.meta is not None
            text = entry_text(content, detail)
            if c.semantic is not None and c.semantic > floor:
                c.semantic = weights.damped_similarity(c.semantic, words(text), floor)
            _closer_part(c)
            if c.semantic is not None and asks(text):
                c.semantic = weights.asking_similarity(c.semantic, c.meta[0], floor)


class Fused(Stage):
    """One score per candidate: keyword and semantic evidence fused (weights.fuse), weighed by
    the time the query names (weights.OUTSIDE_TIME_ASKED), and for a log entry by its type and
    age (weights.entry_score); a memory file's chunk has neither, and counts as a fact."""

    def run(self, query: Query, pool: Pool) -> None:
        ranked = [*pool.entries.values(), *pool.chunks.values()]
        best = max((c.semantic for c in ranked if c.semantic is not None), default=0.0)
        share = weights.keyword_share(max((c.keyword for c in ranked), default=0.0))
        scale, now = pool.scale, query.now
        asked = dates.window(query.text, now) if query.text else None
        scored: list[Scored] = []
        for line, c in pool.entries.items():
            assert c.meta is not None
            kind, status, ts = c.meta
            match = weights.fuse(c.keyword, c.semantic, best, share, scale)
            if asked is not None and not asked[0] <= ts < asked[1]:
                match *= weights.OUTSIDE_TIME_ASKED
            scored.append((weights.entry_score(match, kind, status, ts, now), "log", line, c))
        outside = weights.OUTSIDE_TIME_ASKED if asked is not None else 1.0  # a file has no time
        for chunk_id, c in pool.chunks.items():
            scored.append((outside * weights.fuse(c.keyword, c.semantic, best, share, scale)
                           / weights.MAX_TYPE_WEIGHT, "file", chunk_id, c))
        pool.scored = scored


class WhenAsked(Stage):
    """For a query that asks when (``dates.asks_when``): the scores of the texts that name no
    time (``dates.names_time``) times ``weights.NO_TIME_WHEN_ASKED``. Only the candidates that
    could still be among the first ``limit`` are read: weighing down never lifts a score, so
    one below that factor times the ``limit``-th best score now stays out either way."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        if not query.text or not dates.asks_when(query.text) or not pool.scored:
            return
        with self.index.read() as conn:
            pool.scored = _weigh_when(conn, pool.scored, query.request.limit)


class Sorted(Stage):
    """Best first; ties: log before file, then the later line or chunk."""

    def run(self, query: Query, pool: Pool) -> None:
        pool.scored.sort(key=lambda s: (-s[0], s[1], -s[2]))


class Gathered(Stage):
    """A question that asks for someone's many things (``gather.asks_many``): its first results
    chosen away from near copies and towards the subject the question names (``gather.spread``);
    each place keeps its score, so that scores still fall down the list."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        if not query.text or not gather.asks_many(query.text) or not pool.scored:
            return
        limit = min(query.request.limit, gather.MOST)
        scored = pool.scored
        lines = [key for _, kind, key, _ in scored[:gather.WINDOW * limit] if kind == "log"]
        with self.index.read() as conn:
            said = {line: gather.Said(gather.words(entry_text(content, detail)),
                                      gather.names(query.text, name))
                    for line, content, detail, name in texts_and_subjects(conn, lines)}
        spread = gather.spread(scored, lambda s: said.get(s[2], gather.Said()) if s[1] == "log"
                               else gather.Said(), lambda s: s[0], limit)
        pool.scored = [(place[0], kind, key, c)
                       for place, (_, kind, key, c) in zip(scored, spread, strict=True)]


class Ordered(Stage):
    """Each confident meaning-only hit lifted (``keep_confident``), those at or below zero or
    under the request's ``min_score`` left out, cut to its limit."""

    def run(self, query: Query, pool: Pool) -> None:
        request = query.request
        scored = keep_confident(pool.scored, pool.scale)
        scored = [s for s in scored if s[0] > 0 and s[0] >= request.min_score]
        pool.scored = scored[:request.limit]


class Shown(Stage):
    """The scored candidates as hits, each with the part of its text around the query's
    words (``search/snippets.py``)."""

    def __init__(self, index: Index) -> None:
        self.index = index

    def run(self, query: Query, pool: Pool) -> None:
        top = pool.scored
        with self.index.read() as conn:
            rows = {kind: rows_by_key(conn, kind, [k for _, kd, k, _ in top if kd == kind])
                    for kind in ("log", "file")}
        terms = query.terms
        hits: list[EntryHit | ChunkHit] = []
        for score, kind, key, candidate in top:
            shown = rows[kind].get(key)
            if shown is None:  # a term index a moment ahead of another process's rebuild
                continue
            if kind == "log":
                text = snippet([shown["content"], shown["detail"]], terms)
                hits.append(entry_hit(shown, score, text, candidate.keyword, candidate.semantic))
            else:
                hits.append(ChunkHit(shown["path"], shown["start_line"], shown["end_line"], score,
                                     snippet([shown["text"]], terms), candidate.keyword,
                                     candidate.semantic))
        pool.hits = hits


def keep_confident(scored: list[Scored], scale: weights.SimilarityScale) -> list[Scored]:
    """``scored`` (best first) with each confident meaning-only hit at weights.CONFIDENT_PLACE
    at the lowest: a text no keyword found, among the query's weights.CONFIDENT_DENSE_RANK
    closest in meaning, and clearly above the model's floor (``scale.confident``). Keyword
    matches on a word the question shares with many texts ("interests" in "That's
    interesting!") outweighed it however close its meaning was (bench/README.md#ranking); it
    takes the place and the score of the text it passes."""
    place = weights.CONFIDENT_PLACE
    if len(scored) <= place:
        return scored
    closest = heapq.nlargest(weights.CONFIDENT_DENSE_RANK, range(len(scored)),
                             key=lambda i: scored[i][3].semantic or -1.0)
    lifted = sorted(i for i in closest if i >= place and scored[i][3].keyword == 0
                    and (scored[i][3].semantic or -1.0) >= scale.confident)
    for at, i in enumerate(lifted):
        _, kind, key, c = scored.pop(i)
        scored.insert(place - 1 + at, (scored[place - 1 + at][0], kind, key, c))
    return scored


def _weigh_when(conn: sqlite3.Connection, scored: list[Scored], limit: int) -> list[Scored]:
    at_least = weights.NO_TIME_WHEN_ASKED * heapq.nlargest(limit, (s[0] for s in scored))[-1]
    near = [s for s in scored if s[0] >= at_least]
    lines = [key for _, kind, key, _ in near if kind == "log"]
    ids = [key for _, kind, key, _ in near if kind == "file"]
    timeless = ({("log", line) for line, content, detail in texts(conn, lines)
                 if not dates.names_time(entry_text(content, detail))}
                | {("file", chunk_id) for chunk_id, row in rows_by_key(conn, "file", ids).items()
                   if not dates.names_time(row["text"])})
    return [(score * weights.NO_TIME_WHEN_ASKED, kind, key, c) if (kind, key) in timeless
            else (score, kind, key, c) for score, kind, key, c in scored]


def _closer_part(c: Candidate) -> None:
    if c.part is not None and (c.semantic is None or c.part > c.semantic):
        c.semantic = c.part
