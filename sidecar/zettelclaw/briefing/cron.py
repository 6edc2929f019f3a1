"""Cron expressions (the standard five fields) and the next run after a moment, in a time zone.

``minute hour day-of-month month day-of-week``, each field ``*``, a number, a range ``a-b``, a
step ``*/n``, ``a-b/n`` or ``a/n`` (from ``a`` to the end), or a comma-separated list of those.
Months and weekdays also take their English names (``jan``..``dec``, ``sun``..``sat``, any
case); weekday 0 and 7 are both Sunday. ``@yearly``, ``@monthly``, ``@weekly``, ``@daily``
(``@midnight``) and ``@hourly`` stand for their usual expressions.

As in Vixie cron, when both day-of-month and day-of-week are restricted (neither starts with
``*``), a day matches if either does; otherwise both must.

Times are wall-clock times in the given zone. Around daylight saving changes:

- a time that does not exist (the clock jumps from 02:00 to 03:00) runs at the first instant
  after the jump (03:00), once;
- a time that occurs twice (the clock goes back from 02:00 to 01:00) runs once, at its first
  occurrence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
          "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
          "@hourly": "0 * * * *"}
Spec = tuple[str, int, int, tuple[str, ...]]  # name, lowest, highest, names from the lowest
FIELDS: tuple[Spec, ...] = (
    ("minute", 0, 59, ()),
    ("hour", 0, 23, ()),
    ("day of month", 1, 31, ()),
    ("month", 1, 12, MONTHS),
    ("day of week", 0, 7, WEEKDAYS),
)
DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # February: leap years count
SEARCH_YEARS = 30  # a valid expression runs at least once in any 28 years (Feb 29 + weekday)
_PART = re.compile(r"^(\*|[0-9a-z]+(?:-[0-9a-z]+)?)(?:/([0-9]+))?$")


@dataclass(frozen=True)
class Cron:
    expression: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    days_star: bool
    weekdays_star: bool

    def matches_day(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        by_day = day.day in self.days
        by_weekday = (day.weekday() + 1) % 7 in self.weekdays
        if self.days_star or self.weekdays_star:
            return by_day and by_weekday
        return by_day or by_weekday

    def next_after(self, after: datetime, zone: tzinfo) -> datetime:
        """The first run strictly after ``after`` (an aware datetime), in UTC."""
        if after.tzinfo is None:
            raise ValueError("after must be an aware datetime")
        after = after.astimezone(UTC)
        day = after.astimezone(zone).date()
        for _ in range(SEARCH_YEARS * 366):
            if self.matches_day(day):
                for hour in self.hours:
                    for minute in self.minutes:
                        instant = resolve(datetime.combine(day, time(hour, minute)), zone)
                        if instant > after:
                            return instant
            day += timedelta(days=1)
        raise ValueError(f"{self.expression!r} has no run in the next {SEARCH_YEARS} years")


def resolve(wall: datetime, zone: tzinfo) -> datetime:
    """The UTC instant of a naive wall-clock time in ``zone``: its first occurrence when it
    occurs twice, the end of the jump when it does not occur at all."""
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wall:
        return first
    # In a gap: both readings land around the jump; step from the earlier one to the first
    # minute whose wall-clock time is past ``wall`` (the moment the clock jumped).
    other = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    instant = min(first, other)
    while instant.astimezone(zone).replace(tzinfo=None) < wall:
        instant += timedelta(minutes=1)
    return instant


def parse(expression: str) -> Cron:
    """Parse a cron expression; ValueError with a message for a person when it is invalid."""
    text = " ".join(expression.lower().split())
    text = MACROS.get(text, text)
    parts = text.split(" ")
    if len(parts) != len(FIELDS):
        raise ValueError(f"{expression!r}: a cron expression has 5 fields (minute hour "
                         f"day-of-month month day-of-week), not {len(parts)}")
    values = [_field(part, spec, expression) for part, spec in zip(parts, FIELDS, strict=True)]
    minutes, hours, days, months, weekdays = values
    weekdays = {0 if d == 7 else d for d in weekdays}
    cron = Cron(expression=expression.strip(), minutes=tuple(sorted(minutes)),
                hours=tuple(sorted(hours)), days=frozenset(days), months=frozenset(months),
                weekdays=frozenset(weekdays), days_star=parts[2].startswith("*"),
                weekdays_star=parts[4].startswith("*"))
    if cron.weekdays_star and not any(d <= DAYS_IN_MONTH[m - 1] for m in months for d in days):
        raise ValueError(f"{expression!r}: no such day in the chosen months, so it never runs")
    return cron


def _field(text: str, spec: Spec, expression: str) -> set[int]:
    name, low, high, _ = spec
    chosen: set[int] = set()
    for part in text.split(","):
        match = _PART.match(part)
        if match is None:
            raise ValueError(f"{expression!r}: {name}: cannot read {part!r}")
        span, step_text = match.groups()
        step = 1 if step_text is None else int(step_text)
        if step < 1:
            raise ValueError(f"{expression!r}: {name}: a step must be at least 1")
        if span == "*":
            start, end = low, high
        elif "-" in span:
            first, last = span.split("-")
            start, end = _value(first, spec, expression), _value(last, spec, expression)
            if start > end:
                raise ValueError(f"{expression!r}: {name}: range {span!r} runs backwards")
        else:
            start = _value(span, spec, expression)
            end = high if step_text is not None else start
        chosen.update(range(start, end + 1, step))
    return chosen


def _value(text: str, spec: Spec, expression: str) -> int:
    name, low, high, names = spec
    if text in names:
        return names.index(text) + low
    if not text.isdigit():
        raise ValueError(f"{expression!r}: {name}: {text!r} is not a number"
                         + (f" or a name ({', '.join(names)})" if names else ""))
    value = int(text)
    if not low <= value <= high:
        raise ValueError(f"{expression!r}: {name}: {value} is outside {low}-{high}")
    return value


OFF = "off"


def schedule(expression: str) -> Cron | None:
    """``cron.schedule``: a cron expression, or ``off`` (None: the sidecar never runs it)."""
    return None if expression.strip().lower() == OFF else parse(expression)
