"""briefing/zones.py: cron.timezone by name, else the machine's zone with its DST rules.

Covers: a named zone; an unknown name is a ValueError; the local zone from $TZ (with or without
the leading colon), from an /etc/localtime link (named), from a copied zone file (DST rules
kept), UTC when nothing can be read; zone_name.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from zettelclaw.briefing.zones import local_zone, zone, zone_name

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
