"""How results are ordered: the weights and formulas of the scoring pipeline's stages
(``search/scoring.py``): relevance, then what kind of entry it is and how recent. Pure.

A match's quality (in [0, 1], from ``index/keyword.py``: share of the query's words times BM25
relative to the query's best) is weighted by the log's implicit priority signals
(docs/07-search.md#priority-signals): decisions, open questions and open tasks count a little
more than facts and handoffs; recent entries count more than old ones, but decay is gentle (a
year-old entry keeps over 60 % of its weight, a decision over 90 %: it holds until replaced),
because the log never forgets and search must still find old things. Semantic
similarity, when there is one, is made relative to the query's closest text (as keyword quality
is relative to its best BM25) and fused with keyword quality by a weighted sum, never below
KEYWORD_ALONE of the keyword quality alone; the keyword part weighs more when the query's best
keyword match holds most of the query (``keyword_share``). Before that, a text's similarity is
damped when it holds few words (``damped_similarity``) and when it ends by asking
(``asking_similarity``). A query that names a time weighs the entries of that time up
(OUTSIDE_TIME_ASKED); one that asks when weighs the texts that name no time down
(NO_TIME_WHEN_ASKED). Every score is in [0, 1], higher is better.

Why the floor under the keyword part generalises: a cosine similarity says how close two texts
are in meaning, not how much of the question a text holds. A text of a few words (a greeting, a
reply) is close to any question that names the same person or thing, because the name is most
of its vector; a weighted sum that gives meaning most of the weight then ranks such texts above
the entry that holds the question's words. The floor lets a strong keyword match keep its place
whatever the semantic side says, and costs paraphrases nothing: their best keyword match covers
a small share of the query, so KEYWORD_ALONE times it stays below the closest meaning's
1 - KEYWORD_SHARE. Raising KEYWORD_SHARE instead helped long conversations but cost paraphrases:
not taken. What each constant was chosen on, and its figures: bench/README.md#ranking. The
same reasoning for the query side is in ``search/sources.py`` (``model_query``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# Narrow on purpose: these break ties between matches of similar quality, and wider weights made
# a recent decision that shares one word outrank the entry a question is about
# (bench/README.md#ranking).
TYPE_WEIGHT = {
    "decision": 1.1,
    "question": 1.08,  # an unreplaced question is an open loop
    "task:open": 1.08,
    "task:done": 0.95,
    "fact": 1.0,
    "handoff": 0.9,
}
MAX_TYPE_WEIGHT = max(TYPE_WEIGHT.values())
HALF_LIFE_DAYS = 180.0
RECENCY_FLOOR = 0.6
# A decision's floor: it stands until a later one replaces it (corrections are new decisions
# with `replaces`, docs/03-log.md), so a year-old decision nobody revisited is what holds now, as
# much as last week's; the recency left breaks a tie between two that match alike (the newer
# first). A fact, a task, a question or a handoff says how things stood when it was logged, and
# the world moves on without a new entry saying so (bench/README.md#ranking).
DECISION_RECENCY_FLOOR = 0.9
# In hybrid fusion; the rest is semantic similarity: low, so that a paraphrase sharing no word
# with its target is found by meaning (bench/README.md#ranking).
KEYWORD_SHARE = 0.3
# ... when the query's best keyword match holds at most this much of it (its keyword quality:
# the IDF-weighted share of the query's words it holds, times its BM25 relative to the best);
# above, the share rises in proportion, to KEYWORD_SHARE_MOST for a match of every word, since
# how much of the query the words found is evidence of how far to trust them, per query
# (bench/README.md#ranking).
KEYWORD_TRUSTED_FROM = 0.5
KEYWORD_SHARE_MOST = 0.6
# A match's hybrid quality is at least this much of its keyword quality alone: an entry that
# holds the query's words (the best BM25, every word) stays near the top however close in
# meaning a short text is that shares none of them ("Joanna: Later, take care!" is close to any
# question naming Joanna). See the module's docstring and bench/README.md#ranking.
KEYWORD_ALONE = 0.9
# A similarity enters the fusion relative to the query's best one: 1 for the closest text, 0 at
# SIMILARITY_FLOOR, where all-MiniLM-L6-v2 puts unrelated sentences, because raw cosines of a good
# match vary too much between queries for a fixed scale (bench/README.md#ranking). The span
# has a least width, so that when nothing is close nothing counts as a perfect match.
SIMILARITY_FLOOR = 0.2
SIMILARITY_LEAST_SPAN = 0.2
# A text of fewer words than this (not counting stopwords) has its similarity brought towards the
# floor in proportion, because mean pooling over a few word pieces makes a vector that is mostly
# the one name or greeting it holds, close to any question with that name
# (bench/README.md#ranking).
FULL_WORDS = 8
# A log entry that ends by asking, other than a question entry, keeps this much of its
# similarity above the floor: a question is close to another question on its topic by its form
# and its words, yet holds no answer (in a conversation the turn that answers follows it). Its
# words still count in full (the keyword side). A question entry is not damped: it is an open
# loop the user keeps so that it is found (TYPE_WEIGHT); nor is a memory file's line, which has
# no type to say whether it is the user's open question (bench/README.md#ranking).
ASKING = 0.7
DAY = 86_400.0
# When a query names a time ("in May 2023", "last Friday": search/dates.py), what lies outside it
# counts this much; it weighs and does not filter, since a person's "last week" is approximate
# (bench/README.md#ranking).
OUTSIDE_TIME_ASKED = 0.5
# When a query asks for a time ("When did Caroline go to the support group?": search/dates.py,
# asks_when), a text that names none (names_time) counts this much, because the turn that
# answers a "when" says when; it weighs and does not filter, since the time may be the entry's
# own date (bench/README.md#ranking).
NO_TIME_WHEN_ASKED = 0.7


@dataclass(frozen=True, slots=True)
class SimilarityScale:
    """Where a model puts a query's unrelated texts (``floor``), how far above it a text with
    no word of the query must be to be a candidate (``candidate``), the least span between
    the floor and the query's best (``least_span``), and from what similarity a text no
    keyword found, among the query's closest, keeps a place in the first results
    (``confident``: CONFIDENT_PLACE). The shipped model's (``SHIPPED_SCALE``) was measured;
    another model's is read from each query's similarities (``search/semantic.py``)."""

    floor: float
    candidate: float
    least_span: float
    confident: float = math.inf  # unless said: none


# A text that shares no word with the query is a candidate from SIMILARITY_FLOOR + this, for the
# shipped model: below it, all-MiniLM-L6-v2 puts unrelated sentences and loose associations
# (measured with KEYWORD_SHARE: see there).
CANDIDATE_ABOVE_FLOOR = 0.05
# A meaning-only hit is confident from this far above the shipped model's floor: clearly
# related, not a loose association near the candidate line (bench/README.md#ranking).
CONFIDENT_ABOVE_FLOOR = 0.15
SHIPPED_SCALE = SimilarityScale(SIMILARITY_FLOOR, SIMILARITY_FLOOR + CANDIDATE_ABOVE_FLOOR,
                                SIMILARITY_LEAST_SPAN, SIMILARITY_FLOOR + CONFIDENT_ABOVE_FLOOR)
# A text no keyword found and among the query's this many closest in meaning (and confident, as
# above) is never ranked below CONFIDENT_PLACE: keyword matches on a word the question shares
# with many texts outweighed it however close it was, since the keyword part's share rises
# when an entry holds every word (bench/README.md#ranking).
CONFIDENT_DENSE_RANK = 3
CONFIDENT_PLACE = 10


# (type, status) -> weight: a search weighs a hundred candidates, a tuple key is the cheap one
_WEIGHT_OF: dict[tuple[str, str | None], float] = {
    ("task", key[5:]) if key.startswith("task:") else (key, None): weight
    for key, weight in TYPE_WEIGHT.items()}
_DECAY = math.log(0.5) / (HALF_LIFE_DAYS * DAY)  # per second: exp(_DECAY * age) = 0.5 ** halves


def type_weight(kind: str, status: str | None) -> float:
    return _WEIGHT_OF.get((kind, status if kind == "task" else None), 1.0)


def recency_weight(ts: float, now: float, floor: float = RECENCY_FLOOR) -> float:
    """1 for now, halving the part above ``floor`` every HALF_LIFE_DAYS."""
    age = now - ts
    return floor + (1.0 - floor) * (math.exp(_DECAY * age) if age > 0 else 1.0)


def entry_score(match: float, kind: str, status: str | None, ts: float, now: float) -> float:
    """A log entry's final score from its match quality in [0, 1]."""
    floor = DECISION_RECENCY_FLOOR if kind == "decision" else RECENCY_FLOOR
    return match * type_weight(kind, status) * recency_weight(ts, now, floor) / MAX_TYPE_WEIGHT


def relative_similarity(similarity: float, best: float, floor: float = SIMILARITY_FLOOR,
                        least_span: float = SIMILARITY_LEAST_SPAN) -> float:
    """A cosine similarity on keyword quality's scale, given the query's best one (in [0, 1]),
    and where the model puts unrelated texts (``floor``: SIMILARITY_FLOOR for the shipped
    model; another model's comes from the query, ``search/semantic.py``)."""
    span = max(best - floor, least_span)
    if span <= 0:
        return 0.0
    return min(max((similarity - floor) / span, 0.0), 1.0)


def damped_similarity(similarity: float, words: int, floor: float = SIMILARITY_FLOOR) -> float:
    """A text's similarity given how many words (not stopwords) it holds: FULL_WORDS or more
    keep it; fewer bring it towards ``floor`` in proportion."""
    if words >= FULL_WORDS or similarity <= floor:
        return similarity
    return floor + (similarity - floor) * words / FULL_WORDS


def damped_similarities(similarities: Any, words: Any, floor: float = SIMILARITY_FLOOR) -> Any:
    """``damped_similarity`` of each text at once: numpy arrays of similarities and words (an
    entry's sentences, ``search/semantic.py``)."""
    import numpy as np

    short = (similarities > floor) & (words < FULL_WORDS)
    return np.where(short, floor + (similarities - floor) * words / FULL_WORDS, similarities)


def asking_similarity(similarity: float, kind: str, floor: float = SIMILARITY_FLOOR) -> float:
    """The similarity of an entry of type ``kind`` whose text ends by asking
    (``search.pieces.asks``): brought towards ``floor`` by ASKING, unless it is a question
    entry."""
    if kind == "question" or similarity <= floor:
        return similarity
    return floor + (similarity - floor) * ASKING


def keyword_share(best_keyword: float) -> float:
    """The keyword part's weight in ``fuse`` for a query whose best keyword match has quality
    ``best_keyword``: KEYWORD_SHARE up to KEYWORD_TRUSTED_FROM, then rising in proportion to
    KEYWORD_SHARE_MOST at 1."""
    above = (best_keyword - KEYWORD_TRUSTED_FROM) / (1.0 - KEYWORD_TRUSTED_FROM)
    return KEYWORD_SHARE + (KEYWORD_SHARE_MOST - KEYWORD_SHARE) * min(max(above, 0.0), 1.0)


def fuse(keyword: float, semantic: float | None, best: float,
         share: float = KEYWORD_SHARE, scale: SimilarityScale = SHIPPED_SCALE) -> float:
    """Hybrid match quality: keyword relevance and cosine similarity, the latter relative to
    ``best``, the query's highest similarity among the texts ranked, on the model's ``scale``
    (the shipped model's by default), weighed ``share`` to the rest (``keyword_share``); never
    below KEYWORD_ALONE of the keyword relevance."""
    if semantic is None:
        return keyword
    relative = relative_similarity(semantic, best, scale.floor, scale.least_span)
    return max(share * keyword + (1.0 - share) * relative, KEYWORD_ALONE * keyword)
