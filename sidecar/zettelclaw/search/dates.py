"""Time in queries and texts. Pure.

``window``: the time a query names, "in May 2023", "on 23 January, 2022", "in 2021" as written;
"yesterday", "last Friday", "last week", "two weeks ago" relative to now: [start, end) in Unix
seconds (UTC days), or None when the query names no time. Search weighs the entries of that
time up (``search/scoring.py``); it filters nothing, since a person's "last week" is approximate
and the entry may be about an earlier day.

``asks_when`` and ``names_time``: whether a query asks for a time ("When did ...?", "what
time ...", "which year ...") and whether a text names one ("yesterday", "last week", "on
Friday", "March 14", "in 2022", "9:30"). The answer to a question that asks when says when:
search weighs the texts that name no time down for such a question (``search/weights.py``,
NO_TIME_WHEN_ASKED).
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"((?:19|20)\d\d)"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? {_MONTH},? {_YEAR}\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?,? {_YEAR}\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH},? (?:of )?{_YEAR}\b")
_IN_YEAR = re.compile(rf"\b(?:in|during|of|since) {_YEAR}\b")
_WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_LAST_WEEKDAY = re.compile(r"\blast (" + "|".join(_WEEKDAYS) + r")\b")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_AGO = re.compile(r"\b(\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True))
                  + r") (day|week|month|year)s? ago\b")
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_LAST = re.compile(r"\blast (week|month|year)\b")


def _day(d: date) -> float:
    return datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp()


def _span(start: date, end: date) -> tuple[float, float]:
    return _day(start), _day(end)


def window(query: str, now: float) -> tuple[float, float] | None:  # noqa: PLR0911
    """[start, end) of the time ``query`` names, or None (the first form found, in the order
    below: absolute dates before relative ones)."""
    text = query.lower()
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        m = pattern.search(text)
        if m:
            parts = dict(zip(order, m.groups(), strict=True))
            try:
                day = date(int(parts["y"]), _MONTHS[parts["m"]], int(parts["d"]))
            except ValueError:  # 31 February
                continue
            return _span(day, day + timedelta(days=1))
    m = _MONTH_YEAR.search(text)
    if m:
        year, month = int(m.group(2)), _MONTHS[m.group(1)]
        return _span(date(year, month, 1),
                     date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1))
    m = _IN_YEAR.search(text)
    if m:
        year = int(m.group(1))
        return _span(date(year, 1, 1), date(year + 1, 1, 1))
    today = datetime.fromtimestamp(now, UTC).date()
    if re.search(r"\byesterday\b", text):
        return _span(today - timedelta(days=1), today)
    m = _LAST_WEEKDAY.search(text)
    if m:
        back = (today.weekday() - _WEEKDAYS[m.group(1)]) % 7 or 7
        day = today - timedelta(days=back)
        return _span(day, day + timedelta(days=1))
    m = _AGO.search(text)
    if m:
        count = int(m.group(1)) if m.group(1).isdigit() else _NUMBERS[m.group(1)]
        unit = _UNIT_DAYS[m.group(2)]
        middle = today - timedelta(days=count * unit)
        half = timedelta(days=unit)  # "two weeks ago": a week either side
        return _span(middle - half, middle + half + timedelta(days=1))
    m = _LAST.search(text)
    if m:
        unit = _UNIT_DAYS[m.group(1)]
        if m.group(1) == "year":
            return _span(date(today.year - 1, 1, 1), date(today.year, 1, 1))
        return _span(today - timedelta(days=2 * unit), today + timedelta(days=1))
    return None


_WHEN = re.compile(r"^\W*when\b|\bwhat (?:time|date|day|month|year)\b"
                   r"|\bwhich (?:day|date|week|month|year)\b|\bhow long ago\b")
_MONTH_NAME = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_WEEKDAY = r"(?:" + "|".join(_WEEKDAYS) + r")s?\b"
_NAMED_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier"
    r"|(?:last|next|this|past|coming) (?:few )?(?:weekend|week|month|year|night|summer|winter"
    r"|spring|fall|autumn|morning|afternoon|evening|" + _WEEKDAY + r")s?"
    r"|" + _WEEKDAY
    + r"|" + _MONTH_NAME + r" \d{1,2}\b|\d{1,2}(?:st|nd|rd|th)? (?:of )?" + _MONTH_NAME
    + r"|(?:in|since|during|until|by|early|late|mid) " + _MONTH_NAME
    + r"|(?:19|20)\d\d\b|\d{1,2}:\d\d|\d{1,2} ?(?:am|pm|a\.m\.|p\.m\.))\b")


def asks_when(query: str) -> bool:
    """Whether ``query`` asks for a time: it begins with "when", or asks what time, date, day,
    month or year, or which, or how long ago. A "when" later in the question is most often a
    conjunction ("What did she do when ...?"), and is not taken."""
    return _WHEN.search(query.lower()) is not None


def names_time(text: str) -> bool:
    """Whether ``text`` says when: a day or part of the week or year relative to its own time
    ("yesterday", "last week", "this summer", "three days ago", "recently"), a weekday, a date
    ("March 14", "14th of March", "in May"), a year, or a time of day ("9:30", "3 pm")."""
    return _NAMED_TIME.search(text.lower()) is not None
