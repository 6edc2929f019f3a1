"""The briefing's time zone: ``cron.timezone`` (an IANA name), else the machine's local zone.

The local zone is a real zone with its daylight saving rules (not today's fixed offset): from
``$TZ`` when it names one, else ``/etc/localtime``; UTC when neither can be read.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from datetime import UTC, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

logger = logging.getLogger(__name__)

LOCALTIME = Path("/etc/localtime")


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
