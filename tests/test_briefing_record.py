"""briefing/record.py: the briefing record in state.json, merged, the other keys kept."""

from __future__ import annotations

from zettelclaw.briefing import record
from zettelclaw.home import Home
from zettelclaw.state import load_state, save_state_locked


def test_merge_and_keep_other_keys(home: Home) -> None:
    save_state_locked(home, {"version": 1, "extractedSessions": {"s": {"at": "x"}}})
    assert record.load(home) == {}
    record.save_locked(home, {"lastRun": "a", "lastResult": {"ok": True}})
    record.save_locked(home, {"nextRun": "b"})
    assert record.load(home) == {"lastRun": "a", "lastResult": {"ok": True}, "nextRun": "b"}
    assert load_state(home)["extractedSessions"] == {"s": {"at": "x"}}


def test_a_damaged_state_file_reads_as_no_record(home: Home) -> None:
    home.state.write_text("{not json")
    assert record.load(home) == {}
    home.state.write_text('{"briefing": 5}')
    assert record.load(home) == {}
