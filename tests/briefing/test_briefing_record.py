"""briefing/record.py: the briefing record in state.json, updated, the other keys kept."""

from __future__ import annotations

import orjson

from zettelclaw.briefing import record
from zettelclaw.home import Home
from zettelclaw.state import BriefingRecord, LastResult, load_state


def test_update_and_keep_other_keys(home: Home) -> None:
    home.state.write_bytes(orjson.dumps({"version": 1, "extractedSessions": {"s": {"at": "x"}}}))
    assert record.load(home) == BriefingRecord()
    record.ran_locked(home, "a", LastResult(ok=True))
    record.next_locked(home, "b")
    assert record.load(home) == BriefingRecord(last_run="a", last_result=LastResult(ok=True),
                                               next_run="b")
    assert load_state(home).extracted_sessions["s"].at == "x"
    assert orjson.loads(home.state.read_bytes())["briefing"] == {
        "lastRun": "a", "lastResult": {"ok": True}, "nextRun": "b"}


def test_a_damaged_state_file_reads_as_no_record(home: Home) -> None:
    home.state.write_text("{not json")
    assert record.load(home) == BriefingRecord()
    home.state.write_text('{"briefing": 5}')
    assert record.load(home) == BriefingRecord()
