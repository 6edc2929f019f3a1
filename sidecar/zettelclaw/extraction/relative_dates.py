"""Relative dates in an extracted entry, resolved against the conversation's own date.

"Last week" means nothing a month later: an entry that says it answers no date question. The
prompt gives the model the conversation's date and asks for absolute dates
(prompts/extraction.md); what a model still writes relatively gets the date it stands for
added after it, in parentheses: "went climbing yesterday (2023-05-06)", "moved last month
(2023-04)". Only unambiguous forms are touched; "recently" or "a while ago" stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from zettelclaw.log.schema import InvalidEntry, parse_timestamp, validate_entry

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"one": 1, "a": 1, "an": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_UNIT = r"(day|week|month|year)s?"
_PATTERN = re.compile(
    r"\b(?:(yesterday|today|tonight|tomorrow)"
    r"|(last|next|this) (week|month|year|weekend|" + "|".join(_WEEKDAYS) + r")"
    r"|(\d{1,2}|" + "|".join(_NUMBERS) + r") " + _UNIT + r" (ago|later|from now))\b"
    r"(?! ?\()",  # already resolved: "yesterday (2023-05-06)"
    re.IGNORECASE)


def resolve(text: str, on: date) -> str:
    """``text`` with each relative date followed by the date it means, seen from ``on``."""
    def add(match: re.Match[str]) -> str:
        meant = _meaning(match, on)
        return match[0] if meant is None else f"{match[0]} ({meant})"
    return _PATTERN.sub(add, text)


def _meaning(match: re.Match[str], on: date) -> str | None:  # noqa: PLR0911 (one per form)
    word = (match[1] or "").lower()
    if word:
        shift = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[word]
        return (on + timedelta(days=shift)).isoformat()
    if match[2]:
        which, unit = match[2].lower(), match[3].lower()
        step = {"last": -1, "next": 1, "this": 0}[which]
        if unit in ("week", "weekend"):
            monday = on - timedelta(days=on.weekday()) + timedelta(weeks=step)
            start = monday + timedelta(days=5) if unit == "weekend" else monday
            return f"the {unit} of {start.isoformat()}"
        if unit == "month":
            return _month(on, step)
        if unit == "year":
            return str(on.year + step)
        day = _WEEKDAYS.index(unit)
        if which == "last":
            back = (on.weekday() - day) % 7 or 7
            return (on - timedelta(days=back)).isoformat()
        ahead = (day - on.weekday()) % 7 or 7
        return (on + timedelta(days=ahead)).isoformat() if which == "next" else None
    count = int(match[4]) if match[4].isdigit() else _NUMBERS[match[4].lower()]
    sign = -1 if match[6].lower() == "ago" else 1
    unit = match[5].lower()
    if unit == "day":
        return (on + timedelta(days=sign * count)).isoformat()
    if unit == "week":
        return f"around {(on + timedelta(weeks=sign * count)).isoformat()}"
    if unit == "month":
        return _month(on, sign * count)
    return str(on.year + sign * count)


def _month(on: date, step: int) -> str:
    index = on.year * 12 + on.month - 1 + step
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def conversation_date(timestamps: Sequence[str | None], entries_at: str | None) -> date:
    """The day a conversation took place: its first message's, else its entries' time (an
    import's), else today."""
    stamp = next((t for t in timestamps if t), None)
    for candidate in (stamp, entries_at):
        if candidate:
            try:
                return parse_timestamp(candidate).date()
            except ValueError:
                continue
    return datetime.now(UTC).date()


def dated(entry: dict[str, Any], on: date) -> dict[str, Any]:
    """The entry with its relative dates resolved (extraction/relative_dates.py), unless that
    would make it too long to be an entry."""
    dated = {k: resolve(v, on) if k in ("content", "detail") and isinstance(
        v, str) else v for k, v in entry.items()}
    if dated == entry:
        return entry
    try:
        validate_entry(dated)
    except InvalidEntry:
        return entry
    return dated
