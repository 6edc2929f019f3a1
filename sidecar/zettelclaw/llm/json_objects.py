"""The JSON objects in a model's reply, read defensively: one parser for every prompt that asks
for "one JSON object per line" (extraction, the briefing's summaries and contradictions).

Models do not keep to one object a line: small local ones pretty-print each object over several
lines, wrap them in code fences or a JSON array, or put prose around them. So the reply is read
as a stream: at each ``{`` or ``[`` a JSON value is decoded (``json.JSONDecoder.raw_decode``),
and whatever lies between values (fences, bullets, commas, prose) is skipped. Counted, so that a
caller can report what it dropped: non-blank lines, lines that held no object at all, and why
each broken object was dropped.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
UNENDED = "a JSON object without its end"  # why an object cut short (or run off) was dropped


@dataclass
class Scan:
    objects: list[dict[str, Any]] = field(default_factory=list)
    lines: int = 0  # non-blank lines of the reply, fences aside
    commentary: int = 0  # of those, lines that held no part of any JSON value
    invalid: list[str] = field(default_factory=list)  # why each broken object was dropped
    cut: bool = False  # the reply ends inside an object (a token limit cut it short)


def scan(text: str) -> Scan:
    found = Scan()
    starts = [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]  # of each line

    def line_of(pos: int) -> int:
        return bisect.bisect_right(starts, pos) - 1

    covered: set[int] = set()  # the lines a decoded value (or a broken one) touched
    pos = 0
    while (start := _next_open(text, pos)) >= 0:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if text[start] == "[":  # prose in brackets, or an array cut short: its objects
                pos = start + 1  # are read one by one from inside it
                continue
            covered.add(line_of(start))
            _broken(found, text, exc)
            nl = text.find("\n", start)  # the rest of a broken object's line is not read again
            pos = len(text) if nl < 0 else nl + 1
            continue
        pos = end
        if not _take(found, value):
            continue  # a list of no objects ("[1, 2]", "[see above]"): words, not output
        covered.update(range(line_of(start), line_of(max(end - 1, start)) + 1))
    for number, begin in enumerate(starts):
        line = text[begin:starts[number + 1] if number + 1 < len(starts) else len(text)]
        if line.strip() and not line.lstrip().startswith("```"):
            found.lines += 1
            found.commentary += number not in covered
    return found


def _next_open(text: str, pos: int) -> int:
    brace, bracket = text.find("{", pos), text.find("[", pos)
    return min(brace, bracket) if brace >= 0 and bracket >= 0 else max(brace, bracket)


def _take(found: Scan, value: Any) -> bool:
    """Add a decoded value's objects; False when it held none."""
    if isinstance(value, dict):
        found.objects.append(value)
        return True
    if not (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
        return False
    for item in value:
        if isinstance(item, dict):
            found.objects.append(item)
        else:
            found.invalid.append("not a JSON object")
    return True


def _broken(found: Scan, text: str, exc: json.JSONDecodeError) -> None:
    unended = _unended(text, exc)
    if unended is None:
        found.invalid.append(f"not valid JSON: {exc.msg}")
    else:
        found.invalid.append(UNENDED)
        found.cut = found.cut or unended


def _unended(text: str, exc: json.JSONDecodeError) -> bool | None:
    """Whether the object stops before its end: None when it is broken otherwise; True when
    the reply ends there (the mark of a reply cut at its token limit), False when a string runs
    off its line and the reply goes on."""
    rest = text[exc.pos:]
    if not rest.strip():
        return True
    if exc.msg.startswith(("Unterminated string", "Invalid control character")):
        return "}" not in rest
    return None
