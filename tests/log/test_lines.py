"""Reading the log as numbered lines from a resumable Position (``zettelclaw.log.lines``).

Covers line numbers and byte offsets, blank and invalid lines, the unterminated last line (a
whole entry is yielded with ``open_tail``; a torn one waits, unconsumed), resuming from a
returned Position, chunk boundaries, and a property: reading a growing file incrementally gives
the same lines as reading the final file in one pass.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import entry, line
from zettelclaw.log import lines as lines_module
from zettelclaw.log.lines import START, Line, LineContinuedError, Position, read_lines


class Growing:
    """A log file that grows by appends, read through one read-only descriptor."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.write_bytes(b"")
        self.fd = os.open(path, os.O_RDONLY)

    def append(self, data: bytes) -> None:
        with self.path.open("ab") as f:
            f.write(data)

    def size(self) -> int:
        return os.fstat(self.fd).st_size

    def read(self, start: Position = START, end: int | None = None) -> list[tuple[Line, Position]]:
        return list(read_lines(self.fd, start, self.size() if end is None else end))


@pytest.fixture
def log(tmp_path: Path) -> Iterator[Growing]:
    g = Growing(tmp_path / "log.jsonl")
    yield g
    os.close(g.fd)


def kind(item: Line) -> str:
    if item.entry is not None:
        assert item.error is None
        return "entry"
    return "invalid" if item.error is not None else "blank"


def test_numbers_offsets_and_positions_of_complete_lines(log: Growing) -> None:
    a, b, c = line(entry()), line(entry("task")), line(entry("decision"))
    log.append(a + b + c)
    got = log.read()
    assert [(x.number, x.offset, x.data) for x, _ in got] == [
        (1, 0, a[:-1]),
        (2, len(a), b[:-1]),
        (3, len(a) + len(b), c[:-1]),
    ]
    assert [p for _, p in got] == [
        Position(len(a), 1, False),
        Position(len(a) + len(b), 2, False),
        Position(len(a) + len(b) + len(c), 3, False),
    ]
    assert [x.entry.type for x, _ in got if x.entry] == ["fact", "task", "decision"]


def test_blank_lines_are_counted_but_hold_nothing(log: Growing) -> None:
    a, b = line(entry()), line(entry())
    log.append(b"\n" + a + b"   \t\n" + b"\n" + b)
    got = log.read()
    assert [(x.number, kind(x)) for x, _ in got] == [
        (1, "blank"), (2, "entry"), (3, "blank"), (4, "blank"), (5, "entry")]
    assert all(x.blank for x, _ in got if kind(x) == "blank")
    assert got[-1][0].offset == 1 + len(a) + 5 + 1
    assert got[-1][1] == Position(log.size(), 5, False)


def test_invalid_lines_are_yielded_with_a_reason(log: Growing) -> None:
    good = line(entry())
    bad_type = line({**entry(), "type": "note"})
    log.append(b"not json\n" + good + bad_type + b'{"id": 1}\n' + b"\xff\xfe\n")
    got = log.read()
    assert [(x.number, kind(x)) for x, _ in got] == [
        (1, "invalid"), (2, "entry"), (3, "invalid"), (4, "invalid"), (5, "invalid")]
    assert got[0][0].data == b"not json"
    assert got[0][0].error is not None
    assert got[0][0].error.startswith("not valid JSON")
    assert got[2][0].error is not None
    assert "type must be one of" in got[2][0].error
    assert got[4][0].data == b"\xff\xfe"


def test_hand_written_entry_without_final_newline_is_read_as_an_open_tail(log: Growing) -> None:
    a, b = line(entry()), line(entry())
    log.append(a + b[:-1])
    got = log.read()
    assert [(x.number, x.data) for x, _ in got] == [(1, a[:-1]), (2, b[:-1])]
    tail = got[-1][1]
    assert tail == Position(len(a) + len(b) - 1, 2, True)

    # Nothing new yet: resuming reads nothing.
    assert log.read(tail) == []

    # The newline that closes it is not a new (blank) line; the next entry is line 3.
    c = line(entry("question"))
    log.append(b"\n" + c)
    again = log.read(tail)
    assert [(x.number, x.offset, x.data) for x, _ in again] == [(3, len(a) + len(b), c[:-1])]
    assert again[-1][1] == Position(log.size(), 3, False)


def test_newline_alone_after_an_open_tail_reads_nothing(log: Growing) -> None:
    a = line(entry())
    log.append(a[:-1])
    [(_, tail)] = log.read()
    log.append(b"\n")
    assert log.read(tail) == []
    # ... and a blank line after that is line 2.
    log.append(b"\n")
    [(blank, after)] = log.read(tail)
    assert (blank.number, kind(blank), blank.offset) == (2, "blank", len(a))
    assert after == Position(len(a) + 1, 2, False)


@pytest.mark.parametrize("torn", [
    b'{"id":"abc',  # a write cut short
    b"garbage",
    b'{"id": 1}',  # whole JSON, not an entry
    b"   ",  # white space only
])
def test_unterminated_tail_that_is_not_an_entry_waits(log: Growing, torn: bytes) -> None:
    a = line(entry())
    log.append(a + torn)
    got = log.read()
    assert [x.number for x, _ in got] == [1]
    # Not consumed: the position stays before the torn bytes.
    assert got[-1][1] == Position(len(a), 1, False)
    assert log.read(got[-1][1]) == []

    # Once a writer terminates it, it is read from that position, as what it is.
    b = line(entry())
    log.append(b"\n" + b)
    again = log.read(got[-1][1])
    assert [(x.number, x.offset, x.data) for x, _ in again] == [
        (2, len(a), torn), (3, len(a) + len(torn) + 1, b[:-1])]
    assert kind(again[0][0]) == ("blank" if not torn.strip() else "invalid")
    assert kind(again[1][0]) == "entry"


def test_torn_tail_that_grows_into_a_whole_entry(log: Growing) -> None:
    a = line(entry())
    log.append(a[:10])
    assert log.read() == []
    log.append(a[10:-1])
    [(first, tail)] = log.read()
    assert (first.number, first.data, tail.open_tail) == (1, a[:-1], True)
    log.append(b"\n")
    assert log.read(tail) == []


def test_end_bounds_the_read(log: Growing) -> None:
    a, b = line(entry()), line(entry())
    log.append(a + b)
    # Up to the middle of the second line: the second line is not there yet.
    got = log.read(end=len(a) + 5)
    assert [(x.number, p) for x, p in got] == [(1, Position(len(a), 1, False))]
    assert log.read(end=0) == []


def test_reading_uses_pread_and_leaves_the_descriptor_offset_alone(log: Growing) -> None:
    log.append(line(entry()) * 3)
    os.lseek(log.fd, 7, os.SEEK_SET)
    assert len(log.read()) == 3
    assert os.lseek(log.fd, 0, os.SEEK_CUR) == 7


@pytest.mark.parametrize("chunk", [1, 2, 5, 64])
def test_lines_across_chunk_boundaries(log: Growing, chunk: int,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = line(entry()), line(entry("handoff", detail="x" * 100))
    log.append(a + b"\n" + b"junk\n" + b + a[:-1])
    whole = [(x.number, x.offset, x.data, kind(x)) for x, _ in log.read()]
    monkeypatch.setattr(lines_module, "CHUNK", chunk)
    small = log.read()
    assert [(x.number, x.offset, x.data, kind(x)) for x, _ in small] == whole
    assert [n for n, *_ in whole] == [1, 2, 3, 4, 5]
    # Resuming after the open tail with a tiny chunk still skips exactly its newline.
    log.append(b"\n" + a)
    [(next_line, _)] = log.read(small[-1][1])
    assert (next_line.number, next_line.data) == (6, a[:-1])


# -- property: incremental reading == one pass over the final file ---------------------------

valid_dicts = st.builds(
    lambda n, type_, content: entry(type_, content=content, id=f"h{n:011d}"),
    st.integers(0, 10**6),
    st.sampled_from(["fact", "task", "decision", "question", "handoff"]),
    st.text(st.characters(codec="utf-8"), max_size=20).filter(str.strip),
)


def _spaced(value: dict[str, Any]) -> bytes:
    """The same entry as a person might write it: spaces, ASCII escapes, another key order."""
    return json.dumps(dict(reversed(value.items()))).encode()


valid_lines = st.one_of(valid_dicts.map(orjson.dumps), valid_dicts.map(_spaced))
# No generated line has a proper prefix that is a whole entry: text and binary junk are far
# shorter than any entry, and a cut entry stops before its closing brace. (A line that goes on
# after a whole entry makes the incremental reader refuse to resume: see the test below.)
garbage = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_characters="\n"), min_size=1, max_size=30)
    .map(str.encode),
    st.binary(min_size=1, max_size=20).map(lambda b: b.replace(b"\n", b"?")),
    st.tuples(valid_lines, st.integers(1, 10**6)).map(lambda t: t[0][: t[1] % (len(t[0]) - 1)]),
    st.sampled_from([b"[]", b"{}", b'{"id": 1}', b"null", b'{"type":"note"}']),
)
blanks = st.sampled_from([b"", b" ", b"\t", b"  \r"])
any_line = st.one_of(valid_lines, garbage, blanks)


@st.composite
def growing_logs(draw: st.DrawFn) -> tuple[bytes, list[int], int]:
    body = b"".join(x + b"\n" for x in draw(st.lists(any_line, max_size=12)))
    tail = draw(st.one_of(st.just(b""), valid_lines, garbage))
    data = body + tail
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=8)))
    chunk = draw(st.sampled_from([1, 3, 7, 64, lines_module.CHUNK]))
    return data, cuts, chunk


def _seen(item: Line) -> tuple[int, int, bytes, str]:
    return item.number, item.offset, item.data, kind(item)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(growing_logs())
def test_incremental_reads_match_one_pass_over_the_final_file(
        case: tuple[bytes, list[int], int]) -> None:
    data, cuts, chunk = case
    with tempfile.TemporaryFile() as f, mock.patch.object(lines_module, "CHUNK", chunk):
        fd = f.fileno()
        incremental: list[tuple[int, int, bytes, str]] = []
        position, written = START, 0
        for cut in [*cuts, len(data)]:
            os.write(fd, data[written:cut])  # the file grows by what was appended meanwhile
            written = cut
            for item, after in read_lines(fd, position, cut):
                assert after.offset <= cut
                incremental.append(_seen(item))
                position = after
        one_pass = [_seen(item) for item, _ in read_lines(fd, START, len(data))]
    assert incremental == one_pass
    # Every line the file holds is accounted for (a torn tail excepted), in order.
    assert [n for n, *_ in one_pass] == list(range(1, len(one_pass) + 1))


def test_open_tail_followed_by_more_bytes_on_the_same_line_is_refused(log: Growing) -> None:
    """The incremental reader cannot take back the entry it yielded for an open tail that went
    on: it refuses to resume (the index then reads from the start) instead of silently dropping
    the rest of the line, and a one-pass read sees one line: the entry that ends it, the bytes
    before it reported (at caac987 both entries were lost)."""
    a, b = line(entry()), line(entry())
    log.append(a[:-1])  # printf '{...}' >> log.jsonl
    first = log.read()
    assert first[-1][1].open_tail
    log.append(b)  # echo '{...}' >> log.jsonl: no newline in between
    with pytest.raises(LineContinuedError):
        log.read(first[-1][1])
    whole = log.read()
    assert len(whole) == 1
    assert whole[0][0].entry is not None
    assert whole[0][0].entry.id == orjson.loads(b)["id"]
    assert whole[0][0].error


def test_records_are_the_same_lines_as_entries(log: Growing) -> None:
    """``read_records`` (a dict per entry, for index builds) reads the same lines, positions
    and reasons as ``read_lines``, the open tail included."""
    log.append(line(entry()) + b"\nnot json\n" + line(entry("task", status="open"))
               + b'{"id": "x"}\n' + line(entry(subject="auth-migration")).rstrip(b"\n"))
    entries = log.read()
    records = list(lines_module.read_records(log.fd, START, log.size()))
    assert [(r.number, r.offset, r.data, r.error, p) for r, p in records] == \
        [(e.number, e.offset, e.data, e.error, p) for e, p in entries]
    assert [r.entry for r, _ in records] == \
        [e.entry.model_dump(exclude_none=True) if e.entry else None for e, _ in entries]
    assert records[-1][1].open_tail
