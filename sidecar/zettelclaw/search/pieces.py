"""What a text is compared by, in semantic search, besides itself: a memory file's chunk by
pieces the model reads whole and its lines that say something on their own; a log entry of
several sentences by each of them too. A text's similarity is the best of them.

Pure text work: no model, no index (``search/semantic.py`` embeds and looks these up).
"""

from __future__ import annotations

import re

from zettelclaw.index import fts

# A ~400-token chunk is embedded in pieces, and its similarity is its best piece's: the model
# reads at most 256 word pieces, and was trained on texts of up to 128, so pieces of ~500
# characters (~125 word pieces) are what it compares best (bench/README.md#ranking).
PIECE_CHARS = 500
# A line of a memory file that says this much is also compared on its own: MEMORY.md is mostly
# one fact a line, and in a piece of ten such lines one of them weighs little
# (bench/README.md#ranking). Headings like "# 2
# November 2025" are shorter and say nothing alone.
LINE_MIN_CHARS = 20
_MARKER = re.compile(r"^\s*(?:[-*+>]|#{1,6}|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def pieces(text: str) -> list[str]:
    """A chunk cut at line boundaries into pieces the model reads whole."""
    out: list[str] = []
    current = ""
    for line in text.splitlines():
        rest = line
        while len(rest) > PIECE_CHARS:  # a very long line is cut where it must be
            if current:
                out.append(current)
                current = ""
            out.append(rest[:PIECE_CHARS])
            rest = rest[PIECE_CHARS:]
        if current and len(current) + 1 + len(rest) > PIECE_CHARS:
            out.append(current)
            current = rest
        else:
            current = f"{current}\n{rest}" if current else rest
    if current:
        out.append(current)
    return [p for p in out if p.strip()]


def compared_texts(text: str) -> list[str]:
    """What a chunk is compared by (its similarity is the best of them): its pieces, and each
    line of LINE_MIN_CHARS or more on its own, without its list or heading marker. A line
    longer than a piece is in the pieces already."""
    out = pieces(text)
    seen = set(out)
    for line in text.splitlines():
        said = _MARKER.sub("", line).strip()
        if LINE_MIN_CHARS <= len(said) <= PIECE_CHARS and said not in seen:
            seen.add(said)
            out.append(said)
    return out


# A log entry of several sentences is also compared by each sentence (its similarity is the
# best of its whole text's and theirs): averaged over every word piece of the text, one
# sentence that answers a question weighs little against the others ("Yes! I went to the
# support group yesterday. It was so powerful."), just as a line of a memory file does in its
# chunk. A sentence of fewer words (not stopwords) than SENTENCE_LEAST_WORDS is not compared
# alone: "Yes!" says nothing, and its similarity would be damped to next to nothing
# (search/weights.py, FULL_WORDS); at most MOST_SENTENCES of an entry are, the first ones. Nor is
# an entry of fewer words than SENTENCES_FROM_WORDS: the model reads a text that short well
# enough whole, and most entries extraction writes are that short, so their sentences would
# double the vectors for nothing (bench/README.md#ranking).
SENTENCE_LEAST_WORDS = 3
MOST_SENTENCES = 16
SENTENCES_FROM_WORDS = 12
# A semicolon joins two sentences that could stand alone ("Mobile app 4.0 drops support for
# Android 8 and older; those versions are under 2% of active users"): each is compared alone
# too. A colon is not: it follows a label as often as a sentence ("Caroline: ...", "Office
# chair: ..."), and splitting after a sentence of three words or more still cost LoCoMo's
# tuning half a question it had.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
# What may close a sentence after its mark: quotes, brackets, and the space around them.
_CLOSING = " \t\r\n\"'\u2019\u201d)]}>*_"


def words(text: str) -> int:
    """The words of ``text`` that are not stopwords: how much a text says, to the model's
    similarity (``search/weights.py``, ``damped_similarity``)."""
    found = fts.WORD_RE.findall(text.lower())
    # (map over the set's own test: twice as fast as a generator)
    return len(found) - sum(map(fts.STOPWORDS.__contains__, found))


def sentences(text: str) -> list[tuple[str, int]]:
    """The sentences of an entry's text compared on their own, each with its word count
    (``words``): none when it has only one, or fewer than SENTENCES_FROM_WORDS words. A
    sentence ends at ``.``, ``!``, ``?`` or ``;`` before a space, or at a line's end."""
    if words(text) < SENTENCES_FROM_WORDS:
        return []
    found = [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]
    if len(found) < 2:
        return []
    out: list[tuple[str, int]] = []
    for sentence in dict.fromkeys(found):  # a sentence said twice is compared once
        said = words(sentence)
        if said >= SENTENCE_LEAST_WORDS:
            out.append((sentence, said))
            if len(out) == MOST_SENTENCES:
                break
    return out


def asks(text: str) -> bool:
    """Whether ``text`` ends by asking: its last sentence is a question (``?`` or the
    full-width one, before any closing quote or bracket). ``search/weights.py`` (ASKING)
    says why that matters."""
    return text.rstrip(_CLOSING).endswith(("?", "\uff1f"))
