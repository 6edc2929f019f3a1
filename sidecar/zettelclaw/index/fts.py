"""Turning what a person or an agent typed into FTS5 MATCH expressions. Pure; no SQLite here.

Words are taken out of the query and each is quoted, so FTS5's own syntax (AND, NEAR, ``*``,
column filters, stray quotes) in a query is searched for as text rather than obeyed or failing.
Very common English words are dropped unless nothing else is left, so "what did we decide about
the webhook" searches for "decide" and "webhook" rather than for every entry with "the".

A symbol (Unicode category S: an emoji, "+", "$", "°") is a word of its own, one character long,
as the term index cuts it (``index/term_documents.py``): "🍮" finds the entry with 🍮 and not the
one with 🚀. FTS5 would glue a symbol to the letters beside it ("C++" one token), so the text it
indexes has spaces around each symbol (``indexed_text``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

WORD_RE = re.compile(r"\w+", re.UNICODE)
_PIECE_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)  # words, and one character of anything else
_OTHER_RE = re.compile(r"[^\w\s]", re.UNICODE)
# The token characters of the Markdown chunks' FTS5 table (database.py): unicode61's default
# (letters, numbers, private use) and symbols, each of which ``indexed_text`` stands apart.
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2 categories 'L* N* Co S*'"

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had
has have having he her here hers him his how i if in into is it its itself just me more most my
no nor not now of off on once only or other our ours out over own same she should so some such
than that the their them then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours
""".split())


def _symbol(char: str) -> bool:
    return unicodedata.category(char)[0] == "S"


def words(text: str) -> list[str]:
    """The words of ``text`` as searched: runs of word characters, and each symbol alone
    (punctuation, marks and spaces part them and are dropped)."""
    return [piece for piece in _PIECE_RE.findall(text)
            if not _OTHER_RE.match(piece) or _symbol(piece)]


def indexed_text(text: str) -> str:
    """``text`` as the FTS5 table indexes it: each symbol between spaces, so that it is a token
    of its own (FTS_TOKENIZE)."""
    return _OTHER_RE.sub(lambda m: f" {m.group()} " if _symbol(m.group()) else m.group(), text)


@dataclass(frozen=True)
class MatchPlan:
    terms: tuple[str, ...]
    all_terms: str  # every term must match
    any_term: str | None  # at least one term matches; None when there is a single term


def plan(query: str) -> MatchPlan | None:
    """The MATCH expressions for ``query``, or None when it holds no word to search for."""
    found = [w.lower() for w in words(query)]
    if not found:
        return None
    kept = [w for w in found if w not in STOPWORDS] or found
    terms = tuple(dict.fromkeys(kept))  # de-duplicated, in order
    quoted = [f'"{t}"' for t in terms]  # a quote is no word nor symbol: no escaping needed
    return MatchPlan(
        terms=terms,
        all_terms=" AND ".join(quoted),
        any_term=" OR ".join(quoted) if len(quoted) > 1 else None,
    )


def idf(df: int, total: int) -> float:
    """BM25's inverse document frequency of a word found in ``df`` of ``total`` texts (tantivy's
    and FTS5's formula)."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))
