"""schedule.py: cron expressions and their next runs, in UTC and in zones with DST; the zone.

Covers: the five fields (numbers, *, lists, ranges, steps, a/n, month and weekday names in any
case, 7 = Sunday, macros); errors for a person (field count, ranges, names, steps, days that
never come); the next run strictly after a moment; a non-UTC zone; the day-of-month/day-of-week
OR rule (and AND when one starts with *); Feb 29; DST in America/Detroit: a time in the skipped
hour runs when the clock jumps, a repeated time runs once; "off"; config.py validating
cron.schedule and cron.timezone with the source named. The zone: by name (unknown: ValueError),
else the local zone from $TZ (with or without the leading colon), from an /etc/localtime link
(named), from a copied zone file (DST rules kept), UTC when nothing can be read; zone_name.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from zettelclaw.config import load_config
from zettelclaw.errors import DataDirError
from zettelclaw.home import Home
from zettelclaw.schedule import local_zone, parse, schedule, zone, zone_name

DETROIT = ZoneInfo("America/Detroit")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def runs(expression: str, after: datetime, n: int, zone: ZoneInfo | None = None
         ) -> list[datetime]:
    cron, found = parse(expression), []
    for _ in range(n):
        after = cron.next_after(after, zone or ZoneInfo("UTC"))
        found.append(after)
    return found


def test_fields() -> None:
    monday = utc(2026, 2, 23)  # a Monday
    assert runs("*/15 9-17 * * mon-FRI", utc(2026, 2, 23, 17, 30), 2) == [
        utc(2026, 2, 23, 17, 45), utc(2026, 2, 24, 9, 0)]
    assert runs("*/15 9-17 * * mon-FRI", utc(2026, 2, 27, 17, 50), 1) == [utc(2026, 3, 2, 9)]
    assert runs("5/20 * * * *", monday, 3) == [utc(2026, 2, 23, 0, m) for m in (5, 25, 45)]
    assert runs("0 0 1 JAN,jul *", monday, 2) == [utc(2026, 7, 1), utc(2027, 1, 1)]
    sundays = [utc(2026, 3, 1), utc(2026, 3, 8)]
    assert runs("0 0 * * 7", monday, 2) == runs("0 0 * * 0,7", monday, 2) == sundays
    assert runs("1,2,10-12/2 * * * *", monday, 4) == [utc(2026, 2, 23, 0, m)
                                                     for m in (1, 2, 10, 12)]
    assert parse("  0   3 *  * *  ").expression == "0   3 *  * *"


@pytest.mark.parametrize(("macro", "same"), [
    ("@daily", "0 0 * * *"), ("@midnight", "0 0 * * *"), ("@hourly", "0 * * * *"),
    ("@weekly", "0 0 * * 0"), ("@monthly", "0 0 1 * *"), ("@yearly", "0 0 1 1 *"),
    ("@ANNUALLY", "0 0 1 1 *")])
def test_macros(macro: str, same: str) -> None:
    start = utc(2026, 2, 21, 13, 7)
    assert runs(macro, start, 3) == runs(same, start, 3)


@pytest.mark.parametrize(("expression", "message"), [
    ("0 3 * *", "5 fields"),
    ("0 3 * * * *", "5 fields"),
    ("", "5 fields"),
    ("60 * * * *", "cannot read the minute field (it takes 0-59"),
    ("* 24 * * *", "cannot read the hour field (it takes 0-23"),
    ("* * 0 * *", "cannot read the day-of-month field (it takes 1-31"),
    ("* * * 13 *", "cannot read the month field (it takes 1-12 or jan-dec"),
    ("* * * * 8", "cannot read the day-of-week field (it takes 0-7"),
    ("* * * foo *", "cannot read the month field"),
    ("5-1 * * * *", "cannot read the minute field"),
    ("*/0 * * * *", "cannot read the minute field"),
    ("1,,2 * * * *", "cannot read the minute field"),
    ("0 0 30 2 *", "day-of-month field (it takes 1-31, in a month that has it"),
    ("0 0 31 4,6 *", "day-of-month field (it takes 1-31, in a month that has it"),
])
def test_errors_say_what_is_wrong(expression: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse(expression)


def test_next_run_is_strictly_after() -> None:
    assert runs("0 3 * * *", utc(2026, 2, 21, 2, 59), 1) == [utc(2026, 2, 21, 3, 0)]
    assert runs("0 3 * * *", utc(2026, 2, 21, 3, 0), 2) == [utc(2026, 2, 22, 3, 0),
                                                          utc(2026, 2, 23, 3, 0)]
    assert runs("*/20 * * * *", utc(2026, 2, 21, 23, 50), 2) == [utc(2026, 2, 22, 0, 0),
                                                               utc(2026, 2, 22, 0, 20)]
    with pytest.raises(ValueError, match="aware"):
        parse("0 3 * * *").next_after(datetime(2026, 2, 21), DETROIT)


def test_a_non_utc_zone() -> None:
    # 08:00Z is 03:00 in Detroit (EST): the run of that day has just happened
    assert runs("0 3 * * *", utc(2026, 2, 21, 8, 0), 1, DETROIT) == [utc(2026, 2, 22, 8, 0)]
    kolkata = ZoneInfo("Asia/Kolkata")  # +05:30, no DST
    assert runs("30 1 * * *", utc(2026, 2, 21, 0, 0), 1, kolkata) == [utc(2026, 2, 21, 20, 0)]


def test_day_of_month_or_day_of_week() -> None:
    fridays_or_13th = runs("0 0 13 * 5", utc(2026, 2, 1), 4)
    assert [d.date().isoformat() for d in fridays_or_13th] == [
        "2026-02-06", "2026-02-13", "2026-02-20", "2026-02-27"]  # the 13th is a Friday too
    mondays_on_odd_days = runs("0 0 */2 * 1", utc(2026, 2, 1), 2)  # * first: both must match
    assert [d.date().isoformat() for d in mondays_on_odd_days] == ["2026-02-09", "2026-02-23"]


def test_february_29() -> None:
    assert runs("0 0 29 2 *", utc(2026, 3, 1), 1) == [utc(2028, 2, 29)]


def test_dst_spring_forward_runs_the_skipped_time_when_the_clock_jumps() -> None:
    # 2026-03-08 in Detroit: 02:00 EST jumps to 03:00 EDT (07:00Z); 02:30 does not exist
    assert runs("30 2 * * *", utc(2026, 3, 7, 12), 3, DETROIT) == [
        utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 30), utc(2026, 3, 10, 6, 30)]
    # the nightly default keeps its wall-clock time across the change
    assert runs("0 3 * * *", utc(2026, 3, 7, 12), 2, DETROIT) == [
        utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 7, 0)]
    # several skipped times collapse into one run
    assert runs("*/20 2 * * *", utc(2026, 3, 8, 6, 0), 2, DETROIT) == [
        utc(2026, 3, 8, 7, 0), utc(2026, 3, 9, 6, 0)]


def test_dst_fall_back_runs_a_repeated_time_once() -> None:
    # 2026-11-01 in Detroit: 02:00 EDT goes back to 01:00 EST; 01:30 happens twice
    assert runs("30 1 * * *", utc(2026, 10, 31, 12), 3, DETROIT) == [
        utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30), utc(2026, 11, 3, 6, 30)]
    assert runs("0 3 * * *", utc(2026, 10, 31, 12), 2, DETROIT) == [
        utc(2026, 11, 1, 8, 0), utc(2026, 11, 2, 8, 0)]
    assert runs("*/30 * * * *", utc(2026, 11, 1, 5, 0), 3, DETROIT) == [
        utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 7, 0), utc(2026, 11, 1, 7, 30)]


def test_off() -> None:
    assert schedule("off") is None
    assert schedule(" OFF ") is None
    cron = schedule("0 3 * * *")
    assert cron is not None
    assert cron.next_after(utc(2026, 2, 21, 4), ZoneInfo("UTC")) == utc(2026, 2, 22, 3)


def test_config_validates_the_schedule_and_the_zone(home: Home) -> None:
    config = load_config(home, env={"ZETTELCLAW_CRON_SCHEDULE": "off"},
                         overrides=["cron.timezone=America/Detroit"])
    assert (config.cron.schedule, config.cron.timezone) == ("off", "America/Detroit")
    with pytest.raises(DataDirError) as info:
        load_config(home, env={}, overrides=["cron.schedule=0 3 * *"])
    assert info.value.message.startswith("--set cron.schedule: cron.schedule:")
    assert "5 fields" in info.value.message
    with pytest.raises(DataDirError) as info:
        load_config(home, env={"ZETTELCLAW_CRON_TIMEZONE": "Mars/Olympus"})
    assert "$ZETTELCLAW_CRON_TIMEZONE" in info.value.message
    assert "unknown time zone 'Mars/Olympus'" in info.value.message

LISBON = Path("/usr/share/zoneinfo/Europe/Lisbon")


def offset_hours(tz: object, month: int) -> float:
    moment = datetime(2026, month, 15, 12, tzinfo=UTC).astimezone(tz)  # type: ignore[arg-type]
    delta = moment.utcoffset()
    assert delta is not None
    return delta.total_seconds() / 3600


def test_a_named_zone() -> None:
    assert zone_name(zone("America/Detroit")) == "America/Detroit"
    with pytest.raises(ValueError, match="unknown time zone 'Nowhere/Else'"):
        zone("Nowhere/Else")


def test_local_zone_from_tz(tmp_path: Path) -> None:
    missing = tmp_path / "none"
    assert zone_name(local_zone({"TZ": "Asia/Tokyo"}, missing)) == "Asia/Tokyo"
    assert zone_name(local_zone({"TZ": ":Asia/Tokyo"}, missing)) == "Asia/Tokyo"
    assert local_zone({"TZ": "not a zone"}, missing) is UTC
    assert local_zone({}, missing) is UTC


@pytest.mark.skipif(not LISBON.exists(), reason="no system zoneinfo")
def test_local_zone_from_etc_localtime(tmp_path: Path) -> None:
    link = tmp_path / "localtime"
    link.symlink_to(LISBON)
    assert zone_name(local_zone({}, link)) == "Europe/Lisbon"
    copied = tmp_path / "copied"
    shutil.copy(LISBON, copied)
    tz = local_zone({}, copied)
    assert zone_name(tz) == "localtime"
    assert (offset_hours(tz, 1), offset_hours(tz, 7)) == (0.0, 1.0)  # DST rules, not an offset
