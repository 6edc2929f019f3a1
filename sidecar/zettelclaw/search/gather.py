"""Gathering: a question that asks for someone's many things ("What activities does Melanie
partake in?", "Where has Caroline traveled?", "What are Paola's interests?") is answered by
entries from many sessions, weeks apart, each naming one of them. Ranked by score alone, its
first results were the same fact extracted again and again, or other people's entries that hold
the question's words by chance ("That's interesting!" for "interests").

For such a question (``asks_many``) the first results are chosen one at a time (``spread``): an
entry's score counts NEAR_COPY less when it says what a chosen one said (most of its words are
that one's, ``near_copy``), and OTHER_SUBJECT less when the question names a subject (by its
display name, ``names``) that other candidates have and it has not: the subject ties the
list's entries together across sessions. So an entry that names another thing, or one of the
named subject, takes the place of a near copy or a chance match when their scores are close,
and not when it is far weaker. Spreading by session was measured and not taken: the items of a
list are often said in one session too (bench/README.md#ranking). Pure: the caller reads the
subjects and texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from zettelclaw.index.fts import STOPWORDS

# An entry's score counts this much when it is a near copy of one chosen before it:
# NEAR_COPY_FROM of the two texts' words (less stopwords, the larger set's) shared.
NEAR_COPY = 0.5
NEAR_COPY_FROM = 0.7
# ... and this much when the question names a subject (its display name), some of the
# candidates are that subject's and it is not: the list is of that subject's things, and
# another's entry holds the question's words by chance ("That's interesting!").
OTHER_SUBJECT = 0.6
# The spread reorders this many of the best candidates per result asked, at most: lower ones
# stay below them. It chooses MOST results at most (a request of 100 results would otherwise
# compare 200 candidates' words a hundred times); the rest follow in their order.
WINDOW = 2
MOST = 20

_AUX = r"(?:do|does|did|has|have|had|is|are|was|were|can|could|would|will|might)"
# a word that ends in "s" and is no plural noun
_NOT_PLURAL = frozenset("""
    does has is was this its his hers ours yours theirs always sometimes perhaps across plus
    less unless thus yes news series lens bus gas""".split())
_MANY_RES = (
    # "What activities does ...", "Which new books has ..."
    re.compile(rf"^\s*(?:what|which)\s+(?:[a-z-]+\s+)?(?P<noun>[a-z-]+s)\s+{_AUX}\b", re.I),
    # "What kinds of art ...", "What kind of interests ..." (not "What kind of picture")
    re.compile(r"\b(?:what|which)\s+(?:kinds|types|sorts)\s+of\b", re.I),
    re.compile(r"\b(?:what|which)\s+(?:kind|type|sort)\s+of\s+(?P<noun>[a-z-]+s)\b", re.I),
    # "What are Jon's hobbies?", "What were some of her favourite books?"
    re.compile(r"^\s*(?:what|which)\s+(?:are|were)\s+(?:some\s+(?:of\s+)?)?(?:the\s+)?"
               r"(?:[\w-]+(?:'s|s')\s+)?(?:[a-z-]+\s+)?(?P<noun>[a-z-]+s)\b", re.I),
    # "Where has Caroline traveled?", "Where have they camped?"
    re.compile(r"^\s*where\s+(?:has|have)\b", re.I),
    # "What things ...", "In what ways ..."
    re.compile(r"\b(?:what|which)\s+(?:other\s+)?(?:things|ways|places)\b", re.I),
)

S = TypeVar("S")
_WORD = re.compile(r"\w+")


def asks_many(query: str) -> bool:
    """Whether ``query`` asks for several things of one kind (a list), as the patterns above
    read it: a question word with a plural noun, or "where has"."""
    for pattern in _MANY_RES:
        found = pattern.search(query)
        if found is None:
            continue
        noun = found.groupdict().get("noun")
        if noun is None or (noun.lower() not in _NOT_PLURAL and not noun.lower().endswith("ss")):
            return True
    return False


def words(text: str) -> frozenset[str]:
    """A text's words for ``near_copy``: lower-cased, less stopwords."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def near_copy(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two texts' ``words`` are mostly the same: NEAR_COPY_FROM of the larger set."""
    return bool(a) and bool(b) and len(a & b) >= NEAR_COPY_FROM * max(len(a), len(b))


def names(query: str, subject_name: str | None) -> bool:
    """Whether ``query`` names the subject whose display name is ``subject_name``: each of the
    name's words is one of the query's ("Paola" in "What are Paola's interests?")."""
    if not subject_name:
        return False
    wanted = set(_WORD.findall(subject_name.lower()))
    return bool(wanted) and wanted <= set(_WORD.findall(query.lower().replace("'s", " ")))


@dataclass(frozen=True, slots=True)
class Said:
    """What ``spread`` reads of a candidate: its ``words``, and whether its subject is one the
    question names (None for a memory file's chunk, which has no subject field: not weighed
    by it)."""

    words: frozenset[str] = frozenset()
    named: bool | None = None


def spread(scored: Sequence[S], said_of: Callable[[S], Said], score_of: Callable[[S], float],
           limit: int) -> list[S]:
    """``scored`` (best first) with its first ``limit`` chosen one at a time, each the best
    of the first ``WINDOW * limit`` by its score times NEAR_COPY if it is a near copy of one
    chosen, and times OTHER_SUBJECT if the question names the subject of some of them and not
    its own (an entry's); the rest follow in their order."""
    window = list(scored[:WINDOW * limit])
    said = [said_of(item) for item in window]
    named = any(x.named for x in said)
    # each candidate's weighed score; a near copy's falls once, when its original is chosen
    weighed = [score_of(item) * (OTHER_SUBJECT if named and x.named is False else 1.0)
               for item, x in zip(window, said, strict=True)]
    copied = [False] * len(window)
    left = list(range(len(window)))
    chosen: list[S] = []
    while left and len(chosen) < limit:
        best = max(left, key=lambda i: (weighed[i], -i))
        left.remove(best)
        chosen.append(window[best])
        for i in left:
            if not copied[i] and near_copy(said[i].words, said[best].words):
                copied[i] = True
                weighed[i] *= NEAR_COPY
    return chosen + [window[i] for i in left] + list(scored[WINDOW * limit:])
