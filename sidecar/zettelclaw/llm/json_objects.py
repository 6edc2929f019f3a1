"""The JSON objects in a model's reply, read defensively: one parser for every prompt that asks
for "one JSON object per line" (extraction, the briefing's summaries and contradictions).

Tolerated, because models do it: code fences, a JSON array (or one object) instead of lines,
bullets or commentary around the objects. Counted, so that a caller can report what it dropped:
non-blank lines, lines that held no object at all, and why each broken object was dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson


@dataclass
class Scan:
    objects: list[dict[str, Any]] = field(default_factory=list)
    lines: int = 0  # non-blank lines of the reply (elements, for an array)
    commentary: int = 0  # lines that held no object
    invalid: list[str] = field(default_factory=list)  # why each broken object was dropped


def scan(text: str) -> Scan:
    stripped = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("```"))
    whole = stripped.strip()
    if whole.startswith(("[", "{")):  # an array, or one object, instead of lines
        try:
            value = orjson.loads(whole)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, list):
            found = Scan([v for v in value if isinstance(v, dict)], lines=len(value))
            found.invalid += ["not a JSON object"] * (len(value) - len(found.objects))
            return found
        if isinstance(value, dict):
            return Scan([value], lines=1)
    found = Scan()
    for raw in stripped.splitlines():
        line = raw.strip()
        if not line:
            continue
        found.lines += 1
        start, end = line.find("{"), line.rfind("}")
        if start < 0:
            found.commentary += 1
            continue
        if end < start:  # an object cut short, e.g. by the reply's token limit
            found.invalid.append("a JSON object without its end")
            continue
        try:
            value = orjson.loads(line[start : end + 1])
        except orjson.JSONDecodeError as exc:
            found.invalid.append(f"not valid JSON: {exc}")
            continue
        if isinstance(value, dict):
            found.objects.append(value)
        else:
            found.invalid.append("not a JSON object")
    return found
