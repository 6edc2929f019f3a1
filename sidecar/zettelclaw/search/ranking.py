"""How results are ordered: relevance, then what kind of entry it is and how recent. Pure.

BM25 gives relevance (SQLite's ``bm25()`` is negative; more negative is better). On top of it,
the spec's implicit priority signals (§3.5): decisions, open questions and open tasks count more
than facts and handoffs; recent entries count more than old ones, but decay is gentle (a year-old
decision keeps over 60 % of its weight), because the log never forgets and search must still find
old things. Semantic similarity, when there is one, is fused with keyword relevance by a weighted
sum. Every score is in [0, 1], higher is better.
"""

from __future__ import annotations

import math

TYPE_WEIGHT = {
    "decision": 1.3,
    "question": 1.25,  # an unreplaced question is an open loop
    "task:open": 1.25,
    "task:done": 0.9,
    "fact": 1.0,
    "handoff": 0.85,
}
MAX_TYPE_WEIGHT = max(TYPE_WEIGHT.values())
HALF_LIFE_DAYS = 180.0
RECENCY_FLOOR = 0.6
KEYWORD_SHARE = 0.4  # in hybrid fusion; the rest is semantic similarity
MATCH_FLOOR = 0.3  # the least a keyword match is worth (see relevance)
DAY = 86_400.0


def relevance(bm25: float) -> float:
    """BM25 (negative is better) mapped onto [MATCH_FLOOR, 1), strictly increasing.

    The floor: FTS5 clamps the IDF of a word found in over half the entries to almost zero, so
    in a small log BM25 says little about its matches; a match is still a match, worth at least
    the floor, and type and recency then order what BM25 cannot.
    """
    r = max(-bm25, 0.0)
    return MATCH_FLOOR + (1.0 - MATCH_FLOOR) * r / (1.0 + r)


def type_weight(kind: str, status: str | None) -> float:
    key = f"task:{status}" if kind == "task" else kind
    return TYPE_WEIGHT.get(key, 1.0)


def recency_weight(ts: float, now: float) -> float:
    """1 for now, halving the part above the floor every HALF_LIFE_DAYS."""
    age_days = max(now - ts, 0.0) / DAY
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * math.pow(0.5, age_days / HALF_LIFE_DAYS)


def entry_score(match: float, kind: str, status: str | None, ts: float, now: float) -> float:
    """A log entry's final score from its match quality in [0, 1]."""
    return match * type_weight(kind, status) * recency_weight(ts, now) / MAX_TYPE_WEIGHT


def fuse(keyword: float, semantic: float | None) -> float:
    """Hybrid match quality: keyword relevance and cosine similarity (clipped to [0, 1])."""
    if semantic is None:
        return keyword
    return KEYWORD_SHARE * keyword + (1.0 - KEYWORD_SHARE) * min(max(semantic, 0.0), 1.0)


def entry_score_sql(bm25: str, *, kind: str, status: str, ts: str, now: str, share: str) -> str:
    """``entry_score(share * relevance(bm25), kind, status, ts, now)`` as a SQL expression over
    the given column expressions, so that SQLite ranks a candidate window in C and returns only
    the top results (keyword mode). Built from the constants above: one definition of the
    weights (a test checks that both versions agree)."""
    r = f"max(-({bm25}), 0.0)"
    relevance_sql = f"({MATCH_FLOOR} + {1.0 - MATCH_FLOOR} * {r} / (1.0 + {r}))"
    cases = " ".join(
        f"WHEN {kind} = 'task' AND {status} = '{key[5:]}' THEN {w}" if key.startswith("task:")
        else f"WHEN {kind} = '{key}' THEN {w}" for key, w in TYPE_WEIGHT.items())
    weight = f"(CASE {cases} ELSE 1.0 END)"
    recency = (f"({RECENCY_FLOOR} + {1.0 - RECENCY_FLOOR} * pow(0.5, max({now} - {ts}, 0.0)"
               f" / {DAY * HALF_LIFE_DAYS}))")
    return f"({share} * {relevance_sql} * {weight} * {recency} / {MAX_TYPE_WEIGHT})"
