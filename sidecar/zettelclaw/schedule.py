"""When the briefing runs: ``cron.schedule`` (five-field cron) in ``cron.timezone``.

The expression is read and stepped by ``cronsim`` (maintained, the parser healthchecks.io runs
on), over wall-clock times; this module adds what cron libraries disagree on:

- exactly five fields (``cronsim`` also reads a sixth, seconds), and the macros ``@yearly``,
  ``@annually``, ``@monthly``, ``@weekly``, ``@daily``, ``@midnight``, ``@hourly``;
- daylight saving, decided here: a wall-clock time that does not exist (the clock jumps from
  02:00 to 03:00) runs at the first instant after the jump, once however many skipped times
  collapse into it; a wall-clock time that occurs twice (the clock goes back) runs once, at its
  first occurrence, ``*`` in the hour field included;
- the zone: an IANA name, else the machine's local zone with its DST rules (``$TZ`` when it
  names one, else ``/etc/localtime``; UTC when neither can be read).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

logger = logging.getLogger(__name__)

OFF = "off"
FIELDS = "minute hour day-of-month month day-of-week"
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
          "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
          "@hourly": "0 * * * *"}
# cronsim names the field it could not read; this says what the field takes
FIELD_HELP = {
    "minute": "0-59", "hour": "0-23", "day-of-month": "1-31, in a month that has it",
    "month": "1-12 or jan-dec", "day-of-week": "0-7 (0 and 7 are Sunday) or sun-sat",
}
LOCALTIME = Path("/etc/localtime")


@dataclass(frozen=True)
class Cron:
    expression: str  # as written (trimmed)
    fields: str  # the five fields cronsim reads (a macro expanded)

    def next_after(self, after: datetime, zone: tzinfo) -> datetime:
        """The first run strictly after ``after`` (an aware datetime), in UTC."""
        if after.tzinfo is None:
            raise ValueError("after must be an aware datetime")
        after = after.astimezone(UTC)
        # Step through wall-clock times from the wall-clock reading of ``after``: every run
        # earlier on the wall resolves to an instant before ``after``, so none is missed.
        for wall in CronSim(self.fields, after.astimezone(zone).replace(tzinfo=None)):
            instant = resolve(wall, zone)
            if instant > after:
                return instant
        raise ValueError(f"{self.expression!r} never runs")  # pragma: no cover (cronsim stops)


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
    """A cron expression; ValueError with a message for a person when it is invalid."""
    text = " ".join(expression.lower().split())
    fields = MACROS.get(text, text)
    count = len(fields.split(" ")) if fields else 0
    if count != 5:
        raise ValueError(f"{expression!r}: a cron expression has 5 fields ({FIELDS}), "
                         f"not {count}")
    try:
        CronSim(fields, datetime(2000, 1, 1))
    except CronSimError as exc:  # "Bad minute", "Bad day-of-month", ...
        field = str(exc).removeprefix("Bad ").strip()
        takes = FIELD_HELP.get(field)
        detail = (f"cannot read the {field} field (it takes {takes}, *, ranges a-b, steps "
                  "*/n, or a comma-separated list of those)" if takes else str(exc))
        raise ValueError(f"{expression!r}: {detail}") from None
    return Cron(expression=expression.strip(), fields=fields)


def schedule(expression: str) -> Cron | None:
    """``cron.schedule``: a cron expression, or ``off`` (None: the sidecar never runs it)."""
    return None if expression.strip().lower() == OFF else parse(expression)


# -- the zone ----------------------------------------------------------------------------------

def zone(name: str | None, env: Mapping[str, str] | None = None) -> tzinfo:
    """The named zone (ValueError when unknown), or the local zone when ``name`` is None."""
    if name is not None:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown time zone {name!r} (an IANA name such as "
                             "'America/Detroit' or 'UTC')") from None
    return local_zone(os.environ if env is None else env)


def local_zone(env: Mapping[str, str], localtime: Path = LOCALTIME) -> tzinfo:
    name = env.get("TZ", "").removeprefix(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            logger.warning("TZ=%r is not a time zone name; using %s", name, localtime)
    real = os.path.realpath(localtime)
    if "/zoneinfo/" in real:  # /etc/localtime -> /usr/share/zoneinfo/America/Detroit
        try:
            return ZoneInfo(real.split("/zoneinfo/", 1)[1])
        except (ZoneInfoNotFoundError, ValueError):
            pass
    try:
        with localtime.open("rb") as f:
            return ZoneInfo.from_file(f, key="localtime")
    except (OSError, ValueError):
        return UTC


def zone_name(value: tzinfo) -> str:
    key = getattr(value, "key", None)
    return str(key) if key else str(value)
