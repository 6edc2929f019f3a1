"""extraction/bookkeeping.py: per-session records in state.json, merged, cleared and pruned.

Covers record_locked: extractedSessions merges updates and adds up entries and jobs across calls
(with a fresh "at"); other sections merge without counters; ``clear`` removes the session from the
named sections and leaves other sessions alone; records older than prune_days (or with an
unreadable "at") are dropped from every section as the file is written, recent ones kept; other
keys of state.json survive.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from zettelclaw.extraction.bookkeeping import record_locked
from zettelclaw.home import Home
from zettelclaw.log.schema import parse_timestamp
from zettelclaw.state import load_state, save_state_locked


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def record(home: Home, section: str, sid: str, update: dict[str, Any], **kw: Any) -> None:
    record_locked(home, section, sid, update, prune_days=kw.pop("prune_days", 30), **kw)


def test_extracted_sessions_add_up_entries_and_jobs(home: Home) -> None:
    record(home, "extractedSessions", "s1", {"entries": 3, "lastJob": "job-1"})
    record(home, "extractedSessions", "s1", {"entries": 4, "lastJob": "job-2"})
    record(home, "extractedSessions", "s1", {"lastJob": "job-3"})
    rec = load_state(home)["extractedSessions"]["s1"]
    assert rec["entries"] == 7
    assert rec["jobs"] == 3
    assert rec["lastJob"] == "job-3"
    assert datetime.now(UTC) - parse_timestamp(rec["at"]) < timedelta(minutes=5)


def test_extracted_sessions_are_counted_per_session(home: Home) -> None:
    record(home, "extractedSessions", "s1", {"entries": 2})
    record(home, "extractedSessions", "s2", {"entries": 5})
    sessions = load_state(home)["extractedSessions"]
    assert (sessions["s1"]["entries"], sessions["s1"]["jobs"]) == (2, 1)
    assert (sessions["s2"]["entries"], sessions["s2"]["jobs"]) == (5, 1)


def test_other_sections_merge_without_counters(home: Home) -> None:
    record(home, "failedSessions", "s1", {"error": "timeout", "jobId": "job-1"})
    record(home, "failedSessions", "s1", {"error": "500"})
    rec = load_state(home)["failedSessions"]["s1"]
    assert rec["error"] == "500"
    assert rec["jobId"] == "job-1"
    assert "jobs" not in rec
    assert "entries" not in rec


def test_clear_removes_the_session_from_other_sections(home: Home) -> None:
    record(home, "failedSessions", "s1", {"error": "timeout"})
    record(home, "skippedSessions", "s1", {"reason": "no user message"})
    record(home, "failedSessions", "s2", {"error": "timeout"})
    record(home, "extractedSessions", "s1", {"entries": 1},
           clear=("failedSessions", "skippedSessions"))
    state = load_state(home)
    assert "s1" in state["extractedSessions"]
    assert "s1" not in state["failedSessions"]
    assert "s1" not in state["skippedSessions"]
    assert "s2" in state["failedSessions"]


def test_clear_of_a_section_that_is_not_there(home: Home) -> None:
    record(home, "extractedSessions", "s1", {"entries": 1}, clear=("noSuchSection",))
    assert load_state(home)["extractedSessions"]["s1"]["entries"] == 1


def test_old_records_are_pruned(home: Home) -> None:
    save_state_locked(home, {
        "version": 1,
        "extractedSessions": {"old": {"at": ago(40), "entries": 1, "jobs": 1},
                              "recent": {"at": ago(5), "entries": 2, "jobs": 1},
                              "bad-at": {"at": "last tuesday"},
                              "no-at": {"entries": 1}},
        "failedSessions": {"old": {"at": ago(31), "error": "x"},
                           "recent": {"at": ago(29), "error": "y"}},
        "skippedSessions": {"old": {"at": ago(365), "reason": "cron session"}},
        "futureField": {"kept": True},
    })
    record(home, "skippedSessions", "new", {"reason": "hook session"})
    state = load_state(home)
    assert set(state["extractedSessions"]) == {"recent"}
    assert set(state["failedSessions"]) == {"recent"}
    assert set(state["skippedSessions"]) == {"new"}
    assert state["futureField"] == {"kept": True}
    assert state["version"] == 1


def test_prune_days_is_honoured(home: Home) -> None:
    save_state_locked(home, {"extractedSessions": {"a": {"at": ago(3)}, "b": {"at": ago(1)}}})
    record(home, "failedSessions", "c", {"error": "x"}, prune_days=2)
    assert set(load_state(home)["extractedSessions"]) == {"b"}


def test_a_pruned_session_starts_counting_again(home: Home) -> None:
    save_state_locked(home, {"extractedSessions": {"s1": {"at": ago(40), "entries": 9,
                                                          "jobs": 4}}})
    record(home, "extractedSessions", "s1", {"entries": 1})
    rec = load_state(home)["extractedSessions"]["s1"]
    assert (rec["entries"], rec["jobs"]) == (1, 1)
