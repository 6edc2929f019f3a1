"""extraction/provenance.py: the sidecar's own copy of each session's transcript, and its keys.

Covers check_session_id (UUIDs and OpenClaw-style ids accepted; path separators, leading dots,
"..", empty and over-long ids rejected, also by Provenance.path); append + keys round trip with
the job id recorded per line; keys read incrementally (a second call after another append sees
the new keys, reading only from where it stopped) and read again from the start when the file
shrank; a torn last line (no newline) is not a record, and the next append closes it first;
messages() and last(); NotFoundError for a session never received; file mode 0600.
"""

from __future__ import annotations

import stat
from typing import Any

import orjson
import pytest

from zettelclaw.errors import InvalidParamsError, NotFoundError
from zettelclaw.extraction import provenance as provenance_module
from zettelclaw.extraction.provenance import Provenance, check_session_id
from zettelclaw.extraction.transcript import Message, normalize
from zettelclaw.home import Home

SID = "5f0c7a1e-2b8d-4c61-9e3f-0a1b2c3d4e5f"


def msgs(*texts: str, start: int = 0) -> list[Message]:
    return normalize([{"role": "user" if i % 2 == 0 else "assistant", "content": text,
                       "timestamp": 1795234915000 + (start + i) * 1000}
                      for i, text in enumerate(texts)])


@pytest.fixture
def prov(home: Home) -> Provenance:
    return Provenance(home)


# -- session ids -------------------------------------------------------------------------------


@pytest.mark.parametrize("sid", [SID, "4ECBE15D-F127-4EB4-9B35-645245AC42C7", "abc123def456", "s",
                                 "sqlite-main_1.2:3", "a" * 128])
def test_valid_session_ids(sid: str) -> None:
    assert check_session_id(sid) == sid


@pytest.mark.parametrize("sid", ["../x", "a/b", "/etc/passwd", ".hidden", "", "a" * 129, "a..b",
                                 "..", "a\\b", "a b", "a\nb", "-flag", "s\x00"])
def test_invalid_session_ids(sid: str) -> None:
    with pytest.raises(InvalidParamsError) as info:
        check_session_id(sid)
    assert info.value.data[0]["field"] == "sessionId"


def test_the_path_is_checked_too(prov: Provenance) -> None:
    assert prov.path(SID) == prov.dir / f"{SID}.jsonl"
    with pytest.raises(InvalidParamsError):
        prov.path("../../log")


# -- append and keys ---------------------------------------------------------------------------


def test_keys_of_a_session_never_received_are_empty(prov: Provenance) -> None:
    assert prov.keys(SID) == set()
    assert not prov.dir.exists()


def test_append_and_keys_round_trip(prov: Provenance) -> None:
    messages = msgs("Use Postgres", "Noted.")
    prov.append(SID, messages, "job-1")
    assert prov.keys(SID) == {m.key for m in messages}
    records = prov.messages(SID)
    assert records == [{**m.to_json(), "job": "job-1"} for m in messages]
    assert stat.S_IMODE(prov.path(SID).stat().st_mode) == 0o600


def test_appending_nothing_writes_nothing(prov: Provenance) -> None:
    prov.append(SID, [], "job-1")
    assert not prov.path(SID).exists()


def test_keys_are_per_session(prov: Provenance) -> None:
    prov.append(SID, msgs("one"), None)
    prov.append("other-session", msgs("two"), None)
    assert prov.keys(SID) == {m.key for m in msgs("one")}
    assert prov.keys("other-session") == {m.key for m in msgs("two")}


def test_keys_are_read_incrementally(prov: Provenance, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = msgs("one", "two"), msgs("three", "four", start=2)
    prov.append(SID, first, "job-1")
    assert prov.keys(SID) == {m.key for m in first}
    size_after_first = prov.path(SID).stat().st_size

    starts: list[int] = []
    original = Provenance._lines

    def spy(self: Provenance, session_id: str, start: int = 0) -> Any:
        starts.append(start)
        return original(self, session_id, start)

    monkeypatch.setattr(provenance_module.Provenance, "_lines", spy)
    prov.append(SID, second, "job-2")
    assert prov.keys(SID) == {m.key for m in first + second}
    assert starts == [size_after_first]  # only the new bytes were read
    assert prov.keys(SID) == {m.key for m in first + second}
    assert starts == [size_after_first]  # nothing new: nothing read


def test_a_second_instance_sees_what_the_first_appended(home: Home) -> None:
    a, b = Provenance(home), Provenance(home)
    assert b.keys(SID) == set()
    a.append(SID, msgs("one"), None)
    assert b.keys(SID) == {m.key for m in msgs("one")}


def test_keys_are_read_again_when_the_file_shrank(prov: Provenance) -> None:
    prov.append(SID, msgs("one", "two", "three"), None)
    assert len(prov.keys(SID)) == 3
    kept = msgs("four", start=5)
    prov.path(SID).write_bytes(orjson.dumps(kept[0].to_json()) + b"\n")
    assert prov.keys(SID) == {kept[0].key}


def test_a_torn_last_line_is_not_a_record(prov: Provenance) -> None:
    first = msgs("one")
    prov.append(SID, first, "job-1")
    torn = msgs("torn", start=1)[0]
    line = orjson.dumps({**torn.to_json(), "job": "job-2"})
    with prov.path(SID).open("ab") as f:
        f.write(line[: len(line) // 2])
    assert prov.keys(SID) == {first[0].key}
    assert prov.messages(SID) == [{**first[0].to_json(), "job": "job-1"}]
    assert prov.last(SID) == {**first[0].to_json(), "job": "job-1"}


def test_a_torn_complete_object_without_newline_is_not_a_record_yet(prov: Provenance) -> None:
    torn = msgs("torn")[0]
    prov.dir.mkdir()
    prov.path(SID).write_bytes(orjson.dumps({**torn.to_json(), "job": None}))
    assert prov.keys(SID) == set()
    assert prov.messages(SID) == []


def test_the_next_append_closes_a_torn_line_first(prov: Provenance, home: Home) -> None:
    first = msgs("one")
    prov.append(SID, first, "job-1")
    assert prov.keys(SID) == {first[0].key}  # cache the size before the tear
    with prov.path(SID).open("ab") as f:
        f.write(b'{"key": "half-writ')
    later = msgs("two", "three", start=1)
    prov.append(SID, later, "job-2")
    raw = prov.path(SID).read_bytes()
    assert raw.endswith(b"\n")
    assert b'{"key": "half-writ\n{' in raw  # the torn line was closed, not glued to the next
    assert prov.keys(SID) == {m.key for m in first + later}
    assert Provenance(home).keys(SID) == {m.key for m in first + later}  # read afresh
    assert [r["text"] for r in prov.messages(SID)] == ["one", "two", "three"]
    assert prov.last(SID) == {**later[-1].to_json(), "job": "job-2"}


# -- messages and last -------------------------------------------------------------------------


def test_messages_and_last(prov: Provenance) -> None:
    prov.append(SID, msgs("one", "two"), "job-1")
    prov.append(SID, msgs("three", start=2), "job-2")
    records = prov.messages(SID)
    assert [(r["role"], r["text"], r["job"]) for r in records] == [
        ("user", "one", "job-1"), ("assistant", "two", "job-1"), ("user", "three", "job-2")]
    assert prov.last(SID) == records[-1]


def test_unknown_session_is_not_found(prov: Provenance) -> None:
    with pytest.raises(NotFoundError) as info:
        prov.messages(SID)
    assert SID in info.value.message
    assert prov.last(SID) is None


def test_an_existing_empty_transcript_is_not_an_error(prov: Provenance) -> None:
    prov.dir.mkdir()
    prov.path(SID).touch()
    assert prov.messages(SID) == []
    assert prov.last(SID) is None


def test_unreadable_lines_are_skipped(prov: Provenance) -> None:
    good = msgs("one")[0]
    prov.dir.mkdir()
    prov.path(SID).write_bytes(b"garbage\n[1, 2]\n" + orjson.dumps(good.to_json()) + b"\n")
    assert prov.keys(SID) == {good.key}
    assert [r["text"] for r in prov.messages(SID)] == ["one"]


# -- when the host last read a session's transcript (the sweep's filter) ---------------------------


def test_seen_is_unknown_until_marked_and_the_newest_wins(prov: Provenance, home: Home) -> None:
    assert prov.seen(SID) is None
    prov.mark_seen(SID, 1795234915000.0)
    prov.mark_seen(SID, 1795234914000.0)  # an older read (a slow hook) does not go back
    assert prov.seen(SID) == 1795234915000.0
    prov.mark_seen(SID, 1795234916000.5)
    assert prov.seen(SID) == 1795234916000.5
    assert Provenance(home).seen(SID) == 1795234916000.5  # on disk, for the next start
    assert prov.keys(SID) == set()  # a mark is not a message


def test_a_torn_seen_file_is_unknown(prov: Provenance) -> None:
    prov.mark_seen(SID, 1795234915000.0)
    (prov.dir / f"{SID}.seen").write_bytes(b"")  # as a crash before its data reached the disk
    assert prov.seen(SID) is None
    prov.mark_seen(SID, 1.0)
    assert prov.seen(SID) == 1.0


def test_no_seen_file_for_a_bad_session_id(prov: Provenance) -> None:
    with pytest.raises(InvalidParamsError):
        prov.mark_seen("../escape", 1.0)
