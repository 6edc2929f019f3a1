"""What a rule of the scrubber is, and the tests its rules share.

A rule finds candidates with a regular expression and ``pick`` says, for each, the exact span
that is the secret (or None: not a secret). Only that span is replaced: a label, the quotes
around a value and the punctuation after it stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

MARKER = "[redacted: {}]"
MARKER_RE = re.compile(r"\[redacted: [A-Za-z0-9 ]+\]")

Span = tuple[int, int]
Pick = Callable[[re.Match[str]], Span | None]


@dataclass(frozen=True)
class Rule:
    kind: str  # what the marker says was there
    pattern: re.Pattern[str]
    # a cheap test of (text, text.lower()): False means the pattern cannot match
    hint: Callable[[str, str], bool]
    pick: Pick


def group(index: int | str = 0, check: Callable[[re.Match[str]], bool] | None = None) -> Pick:
    """The span of one group of the match, when ``check`` (if any) accepts the match."""
    def pick(match: re.Match[str]) -> Span | None:
        if check is not None and not check(match):
            return None
        return match.span(index)
    return pick


def has(*needles: str) -> Callable[[str, str], bool]:
    return lambda text, lower: any(n in text for n in needles)


def has_lower(*needles: str) -> Callable[[str, str], bool]:
    return lambda text, lower: any(n in lower for n in needles)


def mixed(token: str) -> bool:
    """Random-looking: an upper-case letter, a lower-case letter and a digit. Random base62 of
    20+ characters nearly always is; words, slugs, hex hashes and version strings are not."""
    return (any(c.isupper() for c in token) and any(c.islower() for c in token)
            and any(c.isdigit() for c in token))


_HEX = re.compile(r"[0-9a-fA-F]+")


def random_looking(token: str) -> bool:
    """A key's value, not a word: base62 of mixed case and digits, or hex of 16+ digits with
    letters and digits both (API keys and Django/Flask ``SECRET_KEY`` values are often hex)."""
    if mixed(token):
        return True
    return (len(token) >= 16 and _HEX.fullmatch(token) is not None
            and any(c.isdigit() for c in token) and any(c.isalpha() for c in token))


def luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def apply(rule: Rule, text: str, *, keep_lines: bool = False) -> str:
    """``text`` with each span the rule picks replaced by its marker; ``keep_lines``: followed
    by as many line breaks as the span held, so the lines after it keep their numbers."""
    parts: list[str] = []
    last = pos = 0
    while (match := rule.pattern.search(text, pos)) is not None:
        pos = max(match.end(), match.start() + 1)
        span = rule.pick(match)
        if span is None:
            continue
        start, end = span
        if start < last or start >= end:
            continue
        parts.append(text[last:start])
        parts.append(MARKER.format(rule.kind))
        if keep_lines:
            parts.append("\n" * text.count("\n", start, end))
        # what the match took beyond the secret ("hunter2です" cut at the kana) is looked at
        # again, or a second pass would find more than the first
        last = pos = end
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)
