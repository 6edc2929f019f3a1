"""extraction/bookkeeping.py: per-session records in state.json, added up, cleared and pruned.

Covers extracted_locked (entries and jobs added up across calls, a fresh "at", the session's
failure cleared), failed_locked, skipped_locked (the admission count), and pruning: records older
than prune_days (or with an unreadable or no "at") are dropped from every section as the file is
written, recent ones kept; other keys of state.json survive.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from zettelclaw.extraction.bookkeeping import extracted_locked, failed_locked, skipped_locked
from zettelclaw.home import Home
from zettelclaw.log.schema import parse_timestamp
from zettelclaw.state import load_state


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(home: Home, raw: dict[str, Any]) -> None:
    home.state.write_bytes(orjson.dumps(raw))


def test_extracted_sessions_add_up_entries_and_jobs(home: Home) -> None:
    extracted_locked(home, "s1", entries=3, job_id="job-1", prune_days=30)
    extracted_locked(home, "s1", entries=4, job_id="job-2", prune_days=30)
    extracted_locked(home, "s1", entries=0, job_id="job-3", prune_days=30)
    rec = load_state(home).extracted_sessions["s1"]
    assert (rec.entries, rec.jobs, rec.last_job) == (7, 3, "job-3")
    assert rec.at is not None
    assert datetime.now(UTC) - parse_timestamp(rec.at) < timedelta(minutes=5)


def test_extracted_sessions_are_counted_per_session(home: Home) -> None:
    extracted_locked(home, "s1", entries=2, job_id="j", prune_days=30)
    extracted_locked(home, "s2", entries=5, job_id="j", prune_days=30)
    sessions = load_state(home).extracted_sessions
    assert (sessions["s1"].entries, sessions["s1"].jobs) == (2, 1)
    assert (sessions["s2"].entries, sessions["s2"].jobs) == (5, 1)


def test_a_failure_is_replaced_by_the_next(home: Home) -> None:
    failed_locked(home, "s1", error="timeout", retries=1, job_id="job-1", prune_days=30)
    failed_locked(home, "s1", error="500", retries=1, job_id="job-2", prune_days=30)
    rec = load_state(home).failed_sessions["s1"]
    assert (rec.error, rec.job_id, rec.retries) == ("500", "job-2", 1)


def test_an_extraction_clears_the_sessions_failure(home: Home) -> None:
    failed_locked(home, "s1", error="timeout", retries=1, job_id="j", prune_days=30)
    failed_locked(home, "s2", error="timeout", retries=1, job_id="j", prune_days=30)
    extracted_locked(home, "s1", entries=1, job_id="j2", prune_days=30)
    state = load_state(home)
    assert "s1" in state.extracted_sessions
    assert set(state.failed_sessions) == {"s2"}


def test_a_refusal_is_counted_with_its_reason(home: Home) -> None:
    skipped_locked(home, "s1", "admission policy: agent x", prune_days=30, refused=True)
    skipped_locked(home, "s2", "cron session", prune_days=30)
    state = load_state(home)
    assert state.admission_refused == 1
    assert state.skipped_sessions["s2"].reason == "cron session"


def test_old_records_are_pruned(home: Home) -> None:
    write(home, {
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
    skipped_locked(home, "new", "hook session", prune_days=30)
    state = load_state(home)
    assert set(state.extracted_sessions) == {"recent"}
    assert set(state.failed_sessions) == {"recent"}
    assert set(state.skipped_sessions) == {"new"}
    assert orjson.loads(home.state.read_bytes())["futureField"] == {"kept": True}
    assert state.version == 1


def test_prune_days_is_honoured(home: Home) -> None:
    write(home, {"extractedSessions": {"a": {"at": ago(3)}, "b": {"at": ago(1)}}})
    failed_locked(home, "c", error="x", retries=1, job_id="j", prune_days=2)
    assert set(load_state(home).extracted_sessions) == {"b"}


def test_a_pruned_session_starts_counting_again(home: Home) -> None:
    write(home, {"extractedSessions": {"s1": {"at": ago(40), "entries": 9, "jobs": 4}}})
    extracted_locked(home, "s1", entries=1, job_id="j", prune_days=30)
    rec = load_state(home).extracted_sessions["s1"]
    assert (rec.entries, rec.jobs) == (1, 1)
