"""state.json: one model (``State``) for the whole file, read with defaults, written whole.

Covers load_state (defaults with no file, a partial file completed, unknown keys kept, a file of
an earlier shape read), save_state_locked (round trip, whole-file replacement, owner-only mode,
defaults left unwritten), update_state_locked, a record that does not read dropped rather than
the file, and a file that is not a JSON object.
"""

from __future__ import annotations

import stat
from typing import Any

import orjson
import pytest

from zettelclaw.home import Home
from zettelclaw.state import (
    STATE_VERSION,
    BriefingRecord,
    Extracted,
    Failed,
    LastResult,
    ModelRun,
    Skipped,
    State,
    load_state,
    save_state_locked,
    update_state_locked,
)


def on_disk(home: Home) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(home.state.read_bytes())
    return value


def test_defaults_when_there_is_no_file(home: Home) -> None:
    assert not home.state.exists()
    state = load_state(home)
    assert state == State()
    assert (state.version, state.extracted_sessions, state.admission_refused) == (
        STATE_VERSION, {}, 0)
    assert state.briefing == BriefingRecord()


def test_defaults_are_fresh_each_time(home: Home) -> None:
    first = load_state(home)
    first.extracted_sessions["s1"] = Extracted(at="2026-02-20T15:30:00Z")
    assert load_state(home).extracted_sessions == {}
    assert State().extracted_sessions == {}


def test_round_trip(home: Home) -> None:
    state = State(
        extracted_sessions={"abc12345": Extracted(at="2026-02-20T15:30:00Z", entries=4, jobs=1,
                                                  last_job="job-1")},
        failed_sessions={"def67890": Failed(at="2026-02-20T15:31:00Z", error="timed out",
                                            retries=1, job_id="job-2")},
        skipped_sessions={"s3": Skipped(at="2026-02-20T15:32:00Z", reason="cron session")},
        admission_refused=2,
        briefing=BriefingRecord(last_run="2026-02-21T03:00:00-05:00", next_run=None,
                                last_result=LastResult(ok=True, trigger="start", lines=3,
                                                       model=ModelRun(used=True, summaries=1))))
    save_state_locked(home, state)
    assert load_state(home) == state
    assert on_disk(home)["extractedSessions"]["abc12345"] == {
        "at": "2026-02-20T15:30:00Z", "entries": 4, "jobs": 1, "lastJob": "job-1"}


def test_an_earlier_files_shape_still_loads(home: Home) -> None:
    """A file as the sidecar wrote it before the model: extra fields in records (``attempts``),
    a briefing record with a failure, keys of other versions; all read, and kept when written."""
    old = {
        "version": 1,
        "extractedSessions": {"a": {"at": "2026-02-20T15:30:00Z", "entries": 2, "jobs": 1,
                                    "lastJob": "j1"}},
        "failedSessions": {"b": {"error": "model timed out", "attempts": 2}},
        "skippedSessions": {"c": {"at": "2026-02-20T15:30:00Z", "reason": "cron session"}},
        "admissionRefused": 4,
        "briefing": {"lastRun": "2026-02-21T03:00:00-05:00",
                     "lastResult": {"ok": False, "trigger": "schedule", "error": "no END"},
                     "nextRun": "2026-02-22T03:00:00-05:00"},
        "futureField": [1, 2],
    }
    home.state.write_bytes(orjson.dumps(old))
    state = load_state(home)
    assert state.extracted_sessions["a"].entries == 2
    assert state.failed_sessions["b"].error == "model timed out"
    assert state.skipped_sessions["c"].reason == "cron session"
    assert state.admission_refused == 4
    assert state.briefing.last_result == LastResult(ok=False, trigger="schedule",
                                                    error="no END")
    update_state_locked(home, lambda s: None)
    assert on_disk(home) == old, "read and written back: nothing lost or added"


def test_a_partial_file_is_completed_with_defaults(home: Home) -> None:
    home.state.write_bytes(orjson.dumps({"extractedSessions": {"a": {}}}))
    state = load_state(home)
    assert state.version == STATE_VERSION
    assert state.extracted_sessions == {"a": Extracted()}
    assert state.failed_sessions == {}


def test_a_record_that_does_not_read_is_dropped_not_the_file(home: Home) -> None:
    home.state.write_bytes(orjson.dumps({
        "extractedSessions": {"good": {"entries": 1}, "bad": {"entries": "many"}, "odd": 5},
        "admissionRefused": "x", "briefing": 7}))
    state = load_state(home)
    assert list(state.extracted_sessions) == ["good"]
    assert state.admission_refused == 0
    assert state.briefing == BriefingRecord()


def test_a_save_replaces_the_whole_file(home: Home) -> None:
    save_state_locked(home, State(failed_sessions={"x": Failed(error="e")}))
    save_state_locked(home, State())
    assert load_state(home).failed_sessions == {}
    assert on_disk(home) == {"version": STATE_VERSION}, "defaults are not written"
    assert stat.S_IMODE(home.state.stat().st_mode) == 0o600
    assert [p.name for p in home.root.iterdir() if p.name.endswith(".tmp")] == []


def test_update_reads_changes_and_writes(home: Home) -> None:
    def count(state: State) -> int:
        state.admission_refused += 1
        return state.admission_refused

    assert update_state_locked(home, count) == 1
    assert update_state_locked(home, count) == 2
    assert on_disk(home) == {"version": STATE_VERSION, "admissionRefused": 2}


@pytest.mark.parametrize("content", [b"not json", b"[1, 2]", b'"text"'])
def test_a_file_that_is_not_an_object_is_an_error_naming_it(home: Home, content: bytes) -> None:
    home.state.write_bytes(content)
    with pytest.raises(ValueError, match=r"state\.json"):
        load_state(home)
