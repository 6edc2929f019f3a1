"""What state.json records about sessions (spec §4.1.1), updated under the data lock.

``extractedSessions`` (per session: when, how many entries, how many jobs), ``failedSessions``
(the last permanent failure) and ``skippedSessions`` (why a session was not extracted). Records
older than ``pruneDays`` are dropped as the file is written. These are records for people and
``status``; the exactly-once guarantees rest on the spool and the provenance transcripts.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from zettelclaw.home import Home
from zettelclaw.log.schema import now_timestamp, parse_timestamp
from zettelclaw.state import load_state, save_state_locked

SECTIONS = ("extractedSessions", "failedSessions", "skippedSessions")


def _prune(state: dict[str, Any], days: int) -> None:
    cutoff = datetime.now(UTC) - timedelta(days=days)
    for section in SECTIONS:
        records = state.get(section) or {}
        state[section] = {sid: r for sid, r in records.items()
                          if not isinstance(r, dict) or _recent(r.get("at"), cutoff)}


def _recent(at: Any, cutoff: datetime) -> bool:
    try:
        return parse_timestamp(str(at)) >= cutoff
    except ValueError:
        return False


def record_locked(home: Home, section: str, session_id: str, update: dict[str, Any], *,
                  prune_days: int, clear: tuple[str, ...] = (), count: str | None = None) -> None:
    """Merge ``update`` into ``state[section][session_id]``; drop it from the ``clear`` sections;
    add one to the counter ``state[count]`` (in the same write)."""
    state = load_state(home)
    if count is not None:
        previous_count = state.get(count)
        state[count] = (previous_count if isinstance(previous_count, int) else 0) + 1
    _prune(state, prune_days)
    records = state.setdefault(section, {})
    previous = records.get(session_id) if isinstance(records.get(session_id), dict) else {}
    merged = {**previous, **update, "at": now_timestamp()}
    if section == "extractedSessions":
        merged["entries"] = int(previous.get("entries", 0)) + int(update.get("entries", 0))
        merged["jobs"] = int(previous.get("jobs", 0)) + 1
    records[session_id] = merged
    for other in clear:
        state.get(other, {}).pop(session_id, None)
    save_state_locked(home, state)
