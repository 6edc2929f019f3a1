"""The text shown with a result: where the query's words are, cut to a few lines. Pure.

Built from the text already fetched for the result rather than by asking FTS5 again (its
snippet() re-runs the match, a cost that grows with the log). A word counts as found by its start
(so "retries" is seen in "retry": up to three letters off, never below four), which is what a
person skimming the snippet needs.
"""

from __future__ import annotations

from collections.abc import Sequence

WIDTH = 240
STEM_CUT = 3  # letters a query word may lose to match a form of it ("retries" -> "retr")
MIN_STEM = 4  # but never below this many


def clip(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _first(lower: str, terms: Sequence[str]) -> int:
    hits = []
    for term in terms:
        for cut in range(STEM_CUT + 1):  # the word itself first, then shorter starts of it
            if cut and len(term) - cut < MIN_STEM:
                break
            at = lower.find(term[:len(term) - cut])
            if at >= 0:
                hits.append(at)
                break
    return min(hits) if hits else -1


def snippet(texts: Sequence[str | None], terms: Sequence[str], width: int = WIDTH) -> str:
    """From the first of ``texts`` that holds a query word, the part around its first one;
    else the first text, clipped."""
    first = next((t for t in texts if t), "")
    for text in texts:
        if not text:
            continue
        at = _first(text.lower(), terms)
        if at < 0:
            continue
        if len(text) <= width:
            return text
        start = max(0, min(at - width // 3, len(text) - width))
        space = text.rfind(" ", 0, start + 1)  # start at a word
        start = space + 1 if start and space >= 0 and start - space < 20 else start
        piece = text[start: start + width - 2].rstrip()
        return ("…" if start else "") + piece + ("…" if start + len(piece) < len(text) else "")
    return clip(first, width)
