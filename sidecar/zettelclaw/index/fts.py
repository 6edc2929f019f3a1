"""Turning what a person or an agent typed into FTS5 MATCH expressions. Pure; no SQLite here.

Words are taken out of the query and each is quoted, so FTS5's own syntax (AND, NEAR, ``*``,
column filters, stray quotes) in a query is searched for as text rather than obeyed or failing.
Very common English words are dropped unless nothing else is left, so "what did we decide about
the webhook" searches for "decide" and "webhook" rather than for every entry with "the".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD_RE = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just me more most my
no nor not now of off on once only or other our ours out over own same she should so some such
than that the their them then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours
""".split())


@dataclass(frozen=True)
class MatchPlan:
    terms: tuple[str, ...]
    all_terms: str  # every term must match
    any_term: str | None  # at least one term matches; None when there is a single term


def plan(query: str) -> MatchPlan | None:
    """The MATCH expressions for ``query``, or None when it holds no word to search for."""
    words = [w.lower() for w in WORD_RE.findall(query)]
    if not words:
        return None
    kept = [w for w in words if w not in STOPWORDS] or words
    terms = tuple(dict.fromkeys(kept))  # de-duplicated, in order
    quoted = [f'"{t}"' for t in terms]  # \w+ holds no quote, so no escaping is needed
    return MatchPlan(
        terms=terms,
        all_terms=" AND ".join(quoted),
        any_term=" OR ".join(quoted) if len(quoted) > 1 else None,
    )
